import { Int32, type Document } from "bson";
import type { CommandTraits } from "../commands/command-table";
import { codeNameOf, ErrorCode, MongoCommandError, notSupported } from "../errors";
import { isDocument, isNumeric, toNumber } from "../values/values";

/** mongod's bound on a numeric `w` (the most voting members a replica set can have). */
const MAX_W = 50;

interface WriteConcern {
  readonly w: number | string;
  readonly j: boolean | undefined;
  readonly wtimeout: number;
}

/**
 * A write concern as mongod parses it (`extractWriteConcern`), or undefined when the command names none.
 * A command that takes none refuses one (72), and a standalone refuses what only replication could satisfy
 * (2 BadValue, mongod's `validateWriteConcern`), before running anything.
 */
export function checkWriteConcern({ writeConcern }: CommandTraits, body: Document, replicaSetMember: boolean): void {
  if (writeConcern === "refused") {
    if ("writeConcern" in body) throw new MongoCommandError(ErrorCode.InvalidOptions, "Command does not support writeConcern");
    return;
  }
  const concern = parseWriteConcern(body["writeConcern"]);
  if (concern === undefined || replicaSetMember) return;
  if (typeof concern.w === "number" && concern.w > 1) {
    throw new MongoCommandError(ErrorCode.BadValue, "cannot use 'w' > 1 when a host is not replicated");
  }
  if (typeof concern.w === "string" && concern.w !== "majority") {
    throw new MongoCommandError(
      ErrorCode.BadValue,
      `cannot use non-majority 'w' mode "${concern.w}" when a host is not a member of a replica set`,
    );
  }
}

/**
 * The `writeConcernError` a one-member replica set reports once the write is done: more members than it has
 * (100 UnsatisfiableWriteConcern) or a tag its configuration does not define (79 UnknownReplWriteConcern).
 * The write itself stands, as on mongod; a command that wrote nothing (a read) waits for nothing.
 */
export function writeConcernErrorOf({ writeConcern }: CommandTraits, body: Document, replicaSetMember: boolean): Document | undefined {
  if (!replicaSetMember || writeConcern !== "awaited") return undefined;
  const concern = parseWriteConcern(body["writeConcern"]);
  if (concern === undefined) return undefined;
  const errInfo = { writeConcern: usedWriteConcern(concern) };
  if (typeof concern.w === "number" && concern.w > 1) {
    return {
      code: ErrorCode.UnsatisfiableWriteConcern,
      codeName: codeNameOf(ErrorCode.UnsatisfiableWriteConcern),
      errmsg: "Not enough data-bearing nodes",
      errInfo,
    };
  }
  if (typeof concern.w === "string" && concern.w !== "majority") {
    const errmsg = `No write concern mode named '${concern.w}' found in replica set configuration`;
    return { code: ErrorCode.UnknownReplWriteConcern, codeName: codeNameOf(ErrorCode.UnknownReplWriteConcern), errmsg, errInfo };
  }
  return undefined;
}

/** The write concern as mongod echoes it in `errInfo.writeConcern` (`WriteConcernOptions::toBSON`). */
function usedWriteConcern({ w, j, wtimeout }: WriteConcern): Document {
  return {
    w: typeof w === "number" ? new Int32(w) : w,
    ...(j === undefined ? {} : { j }),
    wtimeout: new Int32(wtimeout),
    provenance: "clientSupplied",
  };
}

function parseWriteConcern(value: unknown): WriteConcern | undefined {
  if (value === undefined) return undefined;
  if (!isDocument(value))
    throw new MongoCommandError(ErrorCode.TypeMismatch, "BSON field 'writeConcern' is the wrong type, expected type 'object'");
  const j = value["j"];
  const wtimeout = value["wtimeout"];
  return {
    w: parseW(value["w"]),
    j: typeof j === "boolean" ? j : undefined,
    wtimeout: isNumeric(wtimeout) ? toNumber(wtimeout) : 0,
  };
}

function parseW(w: unknown): number | string {
  if (w === undefined) return 1;
  if (typeof w === "string") return w;
  if (isDocument(w)) throw notSupported("a write concern of tag counts ('w' as an object)");
  const n = isNumeric(w) ? toNumber(w) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_W) {
    throw new MongoCommandError(
      ErrorCode.FailedToParse,
      `w has to be a non-negative number and not greater than ${MAX_W}; found: ${String(isNumeric(w) ? n : w)}`,
    );
  }
  return n;
}
