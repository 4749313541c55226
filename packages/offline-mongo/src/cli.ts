#!/usr/bin/env node
import { parseArgs } from "node:util";
import { startOfflineServer } from "./index";

const USAGE =
  "usage: npm run offline-mongo -- [--port 27017] [--host 127.0.0.1] [--log-commands] [--notablescan] [--replSet NAME] [--oplogSize MB] [--shards N] [--setParameter enableTestCommands=1]";

/** The command line's server reports on stderr, one line each, as it always did. */
const toStderr = (message: string): void => void process.stderr.write(`[offline-mongo] ${message}\n`);
const STDERR_LOGGER = { warn: toStderr, info: toStderr };

/** The server parameters the command line may set, as mongod's `--setParameter name=value`. */
function testCommandsEnabled(settings: readonly string[]): boolean {
  let enabled = false;
  for (const setting of settings) {
    const [name, value] = setting.split("=", 2);
    if (name !== "enableTestCommands") throw new Error(`--setParameter ${setting}: only enableTestCommands can be set here`);
    if (!["0", "1", "true", "false"].includes(value ?? "")) throw new Error(`--setParameter ${setting}: the value must be 1 or 0`);
    enabled = value === "1" || value === "true";
  }
  return enabled;
}

function parseOptions(): {
  host: string;
  port: number;
  logCommands: boolean;
  notablescan: boolean;
  enableTestCommands: boolean;
  replicaSet?: string;
  oplogSizeBytes?: number;
  shards?: number;
} {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "27017" },
      host: { type: "string", default: "127.0.0.1" },
      "log-commands": { type: "boolean", default: false },
      notablescan: { type: "boolean", default: false },
      replSet: { type: "string" },
      oplogSize: { type: "string" },
      shards: { type: "string" },
      setParameter: { type: "string", multiple: true, default: [] },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got '${values.port}'`);
  }
  const options = {
    host: values.host,
    port,
    logCommands: values["log-commands"],
    notablescan: values.notablescan,
    enableTestCommands: testCommandsEnabled(values.setParameter),
  };
  const oplogSizeMB = values.oplogSize === undefined ? undefined : Number(values.oplogSize);
  if (oplogSizeMB !== undefined && !(Number.isFinite(oplogSizeMB) && oplogSizeMB > 0))
    throw new Error(`--oplogSize must be a positive number of megabytes, got '${values.oplogSize}'`);
  const shards = values.shards === undefined ? undefined : Number(values.shards);
  if (shards !== undefined && !(Number.isInteger(shards) && shards >= 1))
    throw new Error(`--shards must be a whole number of at least 1, got '${values.shards}'`);
  return {
    ...options,
    ...(values.replSet === undefined ? {} : { replicaSet: values.replSet }),
    ...(oplogSizeMB === undefined ? {} : { oplogSizeBytes: Math.round(oplogSizeMB * 1024 * 1024) }),
    ...(shards === undefined ? {} : { shards }),
  };
}

async function main(): Promise<void> {
  if (process.argv.slice(2).some((argument) => argument === "--help" || argument === "-h")) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions();
  } catch (error) {
    process.stderr.write(`offline-mongo: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
  const server = await startOfflineServer({ ...options, logger: STDERR_LOGGER });
  process.stdout.write(
    `offline MongoDB server listening on ${server.uri}${options.replicaSet === undefined ? "" : ` as the primary of replica set ${options.replicaSet}`}${options.shards === undefined ? "" : `, routing as a mongos over ${options.shards} simulated shards`}${options.enableTestCommands ? ", with test commands (fail points) enabled" : ""} (in memory; data is lost on exit)\n`,
  );
  const shutdown = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

void main().catch((error: unknown) => {
  process.stderr.write(`offline-mongo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
