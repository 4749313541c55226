import type { Document } from "bson";
import { ErrorCode, LocationCode, MongoCommandError, unsupportedOption } from "../errors";
import { isDocument } from "../values/values";
import { SNAPSHOT_READ_COMMANDS } from "../sessions/snapshot-reads";

/**
 * Fields the driver may put on any command. Sessions, cluster time, read preference, API version,
 * comments and time limits do not change what a single in-memory node answers.
 */
const GENERIC_FIELDS = new Set([
  "$db",
  "lsid",
  "$clusterTime",
  "$readPreference",
  "readConcern",
  "writeConcern",
  "comment",
  "maxTimeMS",
  "apiVersion",
  "apiStrict",
  "apiDeprecationErrors",
  "$client",
  "mayBypassWriteBlocking",
]);
export function isGenericField(field: string): boolean {
  return GENERIC_FIELDS.has(field);
}

const TRANSACTION_FIELDS = ["txnNumber", "startTransaction", "autocommit"];
/** Read concerns a single node satisfies trivially by reading its only copy of the data. */
const READ_CONCERN_LEVELS = new Set(["local", "available", "majority"]);
/**
 * The reads that take `linearizable` outside transactions. The only member of a set is always its primary
 * and every write it acknowledged is majority-committed, so such a read is its `local` read; a standalone
 * (which mongod refuses it) and the rest stay refused.
 */
const LINEARIZABLE_READS = new Set(["find", "aggregate", "distinct", "count"]);

/**
 * Refuses fields the command does not know (40415, as mongod's strict parsing) and read concerns not
 * implemented; on a standalone, transactions and retryable writes too (20), as mongod does. A replica-set
 * member takes them, reads at a cluster time it has reached (every one it has given out: it is the only
 * member), and the snapshot level only to start a transaction (see `Transactions`).
 */
export function checkGenericFields(name: string, body: Document, fields: readonly string[] | "any", replicaSetMember: boolean): void {
  if (!replicaSetMember && TRANSACTION_FIELDS.some((field) => field in body)) {
    throw new MongoCommandError(ErrorCode.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos");
  }
  for (const field of Object.keys(body).slice(1)) {
    const generic = GENERIC_FIELDS.has(field) || (replicaSetMember && TRANSACTION_FIELDS.includes(field));
    if (fields !== "any" && !generic && !fields.includes(field)) {
      throw new MongoCommandError(LocationCode.UnknownField, `BSON field '${name}.${field}' is an unknown field.`);
    }
  }
  const readConcern = body["readConcern"];
  if (isDocument(readConcern)) checkReadConcern(name, body, readConcern, replicaSetMember);
}

function checkReadConcern(name: string, body: Document, readConcern: Document, replicaSetMember: boolean): void {
  const level = readConcern["level"];
  const snapshotRead = replicaSetMember && level === "snapshot" && isSnapshotRead(name, body);
  const linearizableRead = replicaSetMember && level === "linearizable" && LINEARIZABLE_READS.has(name) && !("autocommit" in body);
  if (level !== undefined && !READ_CONCERN_LEVELS.has(String(level)) && !snapshotRead && !linearizableRead)
    throw unsupportedOption(name, `readConcern.level '${String(level)}'`);
  const atClusterTime = readConcern["atClusterTime"] !== undefined && !(snapshotRead && body["startTransaction"] === undefined);
  if ((!replicaSetMember && readConcern["afterClusterTime"] !== undefined) || atClusterTime) {
    throw unsupportedOption(name, "readConcern with a cluster time");
  }
}

/**
 * Whether a replica-set member reads the command at a snapshot: a transaction's first statement, or outside
 * transactions `find`, `aggregate` and `distinct` (see `SnapshotReads`). Other commands outside transactions get
 * mongod's 72, as a write or a listing of a snapshot session does.
 */
function isSnapshotRead(name: string, body: Document): boolean {
  if (body["startTransaction"] === true) return true;
  if (body["autocommit"] !== undefined) return false;
  if (SNAPSHOT_READ_COMMANDS.has(name)) return true;
  throw new MongoCommandError(
    ErrorCode.InvalidOptions,
    `Command ${name} does not support { readConcern: { level: "snapshot" } } :: caused by :: read concern not supported`,
  );
}
