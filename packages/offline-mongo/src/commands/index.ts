import type { Document } from "bson";
import { MongoCommandError, unsupportedOption } from "../errors";
import { isDocument } from "../values";
import { aggregateCommands } from "./aggregate";
import type { CommandContext, CommandDefinition } from "./context";
import { handshakeCommands } from "./handshake";
import { indexCommands } from "./indexes";
import { namespaceCommands } from "./namespaces";
import { readCommands } from "./read";
import { writeCommands } from "./write";

export type { CommandContext } from "./context";

const COMMANDS = new Map<string, CommandDefinition>(
  [...handshakeCommands, ...readCommands, ...writeCommands, ...aggregateCommands, ...indexCommands, ...namespaceCommands].flatMap(
    (definition) => definition.names.map((name) => [name, definition] as const),
  ),
);

/**
 * Fields the driver may put on any command. Sessions, cluster time, read preference, API version,
 * comments and time limits do not change what a single in-memory node answers.
 */
const GENERIC_FIELDS = new Set([
  "$db", "lsid", "$clusterTime", "$readPreference", "readConcern", "writeConcern", "comment", "maxTimeMS",
  "apiVersion", "apiStrict", "apiDeprecationErrors", "$client", "mayBypassWriteBlocking",
]);
const TRANSACTION_FIELDS = ["txnNumber", "startTransaction", "autocommit"];
/** Read concerns a standalone satisfies trivially by reading its only copy of the data. */
const READ_CONCERN_LEVELS = new Set(["local", "available", "majority"]);

function checkGenericFields(name: string, body: Document, definition: CommandDefinition): void {
  if (TRANSACTION_FIELDS.some((field) => field in body)) {
    throw new MongoCommandError(20, "Transaction numbers are only allowed on a replica set member or mongos");
  }
  for (const field of Object.keys(body).slice(1)) {
    if (definition.fields !== "any" && !GENERIC_FIELDS.has(field) && !definition.fields.includes(field)) {
      throw new MongoCommandError(40415, `BSON field '${name}.${field}' is an unknown field.`);
    }
  }
  const readConcern = body["readConcern"];
  if (isDocument(readConcern)) {
    const level = readConcern["level"];
    if (level !== undefined && !READ_CONCERN_LEVELS.has(String(level))) throw unsupportedOption(name, `readConcern.level '${String(level)}'`);
    if (readConcern["afterClusterTime"] !== undefined || readConcern["atClusterTime"] !== undefined) {
      throw unsupportedOption(name, "readConcern with a cluster time");
    }
  }
}

/** Runs one command synchronously and returns its reply, errors included as `{ok: 0, ...}`. */
export function runCommand(body: Document, context: CommandContext): Document {
  const name = Object.keys(body)[0] ?? "";
  try {
    const definition = COMMANDS.get(name);
    if (!definition) throw new MongoCommandError(59, `no such command: '${name}'`);
    checkGenericFields(name, body, definition);
    return definition.run(body, context);
  } catch (error) {
    if (error instanceof MongoCommandError) return error.toReply();
    const message = error instanceof Error ? error.message : String(error);
    return { ok: 0, errmsg: `offline server internal error: ${message}`, code: 1, codeName: "InternalError" };
  }
}
