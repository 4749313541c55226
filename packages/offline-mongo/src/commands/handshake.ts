import { Int32, ObjectId, type Document } from "bson";
import type { CommandName } from "./command-table";
import { unsupportedOption } from "../errors";
import { MAX_BSON_SIZE } from "../query-engine/storage";
import { OFFLINE_SERVER_VERSION, VERSION_ARRAY } from "../version";
import { isDocument, isTruthy } from "../values/values";
import type { CommandContext, CommandDefinition, ReplicaSetMember } from "./context";

export const MAX_MESSAGE_SIZE = 48_000_000;

/**
 * A standalone server's hello, or a one-member replica set's primary's. No `topologyVersion` (the
 * driver would switch to streaming heartbeats) and no `compression` (we offer none).
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
    ...(context.replicaSet === undefined ? {} : replicaSetFields(context.replicaSet)),
    ok: 1,
  };
}

// One member, primary for good: one election, one configuration version.
const ELECTION_ID = new ObjectId("7fffffff0000000000000001");

function replicaSetFields({ name, me }: ReplicaSetMember): Document {
  return { setName: name, setVersion: 1, hosts: [me], primary: me, me, secondary: false, electionId: ELECTION_ID };
}

/** Two commands on mongod (`isMaster` has the alias `ismaster`), which `failCommand` tells apart. */
function handshake(names: readonly CommandName[]): CommandDefinition {
  return {
    names,
    fields: "any",
    run(body, context) {
      return helloReply(Object.keys(body)[0] ?? "hello", body, context);
    },
  };
}

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

/** Ending a session aborts its open transaction; on a standalone sessions carry no server state. */
/** The session ids a command lists in its first field (`[{id: UUID}, ...]`). */
function listedSessions(body: Document, command: string): unknown[] {
  const listed: unknown = body[command];
  return (Array.isArray(listed) ? listed : []).map((lsid: unknown) => (isDocument(lsid) ? lsid["id"] : undefined));
}

const endSessions: CommandDefinition = {
  names: ["endSessions"],
  fields: [],
  run(body, context) {
    context.transactions.endSessions(listedSessions(body, "endSessions"));
    return { ok: 1 };
  },
};

/**
 * `killSessions` (the listed sessions) and `killAllSessions` (all): their open transactions are aborted (their
 * document locks released), as mongod does; the sessions stay usable. What the test tools run between tests so
 * that a transaction one test left open cannot hold up the next. Without authentication every session is the
 * one user's, so `killAllSessions` with any user list kills them all.
 */
const killSessions: CommandDefinition = {
  names: ["killSessions", "killAllSessions"],
  fields: [],
  run(body, context) {
    context.transactions.killSessions("killAllSessions" in body ? "all" : listedSessions(body, "killSessions"));
    return { ok: 1 };
  },
};

export const handshakeCommands: readonly CommandDefinition[] = [
  handshake(["hello"]),
  handshake(["isMaster", "ismaster"]),
  ping,
  buildInfo,
  endSessions,
  killSessions,
];
