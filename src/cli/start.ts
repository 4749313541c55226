import { startTracingIfRequested } from "../observability/tracing";
import { supportedNodeRange, unsupportedNodeWarning } from "./node-version";

/**
 * `npm start`: the API (`api.ts`). OpenTelemetry's instrumentations patch `http`, `graphql`
 * and the driver as they are loaded, so when the environment asks for traces the SDK starts first and
 * the API's modules are imported after it; without that request nothing of OpenTelemetry loads.
 */
const nodeWarning = unsupportedNodeWarning(process.versions.node, supportedNodeRange());
if (nodeWarning) console.error(nodeWarning);

startTracingIfRequested(process.env)
  .then(() => import("./api.js"))
  .then(
    ({ runApi }) => runApi(),
    (error: unknown) => {
      console.error(`Tracing could not start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
