import { Int32, type Document } from "bson";
import { unsupportedOption } from "../errors";
import { MAX_BSON_SIZE } from "../storage";
import { OFFLINE_SERVER_VERSION, VERSION_ARRAY } from "../version";
import { isTruthy } from "../values";
import type { CommandContext, CommandDefinition } from "./context";

export const MAX_MESSAGE_SIZE = 48_000_000;

/**
 * A standalone server's hello. No `topologyVersion` (the driver would switch to streaming
 * heartbeats) and no `compression` (we offer none).
 */
export function helloReply(command: string, body: Document, context: CommandContext): Document {
  if (isTruthy(body["loadBalanced"])) throw unsupportedOption(command, "loadBalanced");
  const primaryField = command === "hello" ? { isWritablePrimary: true } : { ismaster: true };
  return {
    ...(isTruthy(body["helloOk"]) ? { helloOk: true } : {}),
    ...primaryField,
    maxBsonObjectSize: MAX_BSON_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: context.connectionId,
    minWireVersion: 0,
    maxWireVersion: 21,
    readOnly: false,
    ok: 1,
  };
}

const hello: CommandDefinition = {
  names: ["hello", "isMaster", "ismaster"],
  fields: "any",
  run(body, context) {
    return helloReply(Object.keys(body)[0] ?? "hello", body, context);
  },
};

const ping: CommandDefinition = { names: ["ping"], fields: [], run: () => ({ ok: 1 }) };

const buildInfo: CommandDefinition = {
  names: ["buildInfo", "buildinfo"],
  fields: [],
  run: () => ({
    version: OFFLINE_SERVER_VERSION,
    gitVersion: "offline",
    versionArray: VERSION_ARRAY.map((part) => new Int32(part)),
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_SIZE,
    storageEngines: ["offline-memory"],
    ok: 1,
  }),
};

/** Sessions carry no server state here (no transactions, no retryable writes), so ending them is a no-op. */
const endSessions: CommandDefinition = { names: ["endSessions"], fields: [], run: () => ({ ok: 1 }) };

export const handshakeCommands: readonly CommandDefinition[] = [hello, ping, buildInfo, endSessions];
