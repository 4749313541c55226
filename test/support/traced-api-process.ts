import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { startTracing } from "../../src/observability/tracing";

/** What the tests read of a finished span; sent over the IPC channel, so plain data. */
export interface FinishedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** The instrumentation that made it, e.g. `@opentelemetry/instrumentation-mongodb`. */
  scope: string;
  attributes: Record<string, unknown>;
}

/**
 * The API as `npm start` runs it (tracing first, then the API's modules), its spans kept by the SDK's
 * InMemorySpanExporter instead of exported. Started with an IPC channel: any message it receives is
 * answered with every span finished so far.
 */
const exporter = new InMemorySpanExporter();
process.on("message", () => process.send?.(exporter.getFinishedSpans().map(finishedSpan)));
startTracing(process.env, [new SimpleSpanProcessor({ exporter })])
  .then(() => import("../../src/cli/api.js"))
  .then(({ runApi }) => runApi());

function finishedSpan(span: ReadableSpan): FinishedSpan {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    scope: span.instrumentationScope.name,
    attributes: { ...span.attributes },
  };
}
