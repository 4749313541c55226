import { Binary, Timestamp, type Document } from "bson";
import { createHash } from "node:crypto";
import type { ChangeEntry, HistoryPoint } from "./change-log";
import { ErrorCode, MongoCommandError } from "../errors";
import { isDocument, sameStoredValue } from "../values/values";

/** Resume token kinds, the last byte of `_data`. */
const HIGH_WATER_MARK = 0;
const EVENT = 1;
const INVALIDATE = 2;

const TOKEN_PATTERN = /^82([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})(0[0-2])$/;

function hex(n: number, digits: number): string {
  return n.toString(16).toUpperCase().padStart(digits, "0");
}

/**
 * A resume token as mongod shapes it (`{_data: <hex string>}`, starting with the cluster time, so tokens sort
 * as their events do); what follows the time is the stand-in's own: the index in the transaction and the kind.
 */
export function resumeToken(point: HistoryPoint): Document {
  const kind = point.highWaterMark ? HIGH_WATER_MARK : point.fromInvalidate ? INVALIDATE : EVENT;
  return { _data: `82${hex(point.ts.t, 8)}${hex(point.ts.i, 8)}${hex(point.index, 8)}${hex(kind, 2)}` };
}

/** The point a client's resume token names; 260 InvalidResumeToken for anything this server did not give out. */
export function pointOf(token: unknown): HistoryPoint {
  const data = isDocument(token) ? token["_data"] : undefined;
  const match = typeof data === "string" ? TOKEN_PATTERN.exec(data) : null;
  if (match === null) throw new MongoCommandError(ErrorCode.InvalidResumeToken, `Invalid resume token: ${JSON.stringify(token)}`);
  const [, t = "0", i = "0", index = "0", kind = "0"] = match;
  const kindNumber = parseInt(kind, 16);
  return {
    ts: new Timestamp({ t: parseInt(t, 16), i: parseInt(i, 16) }),
    index: parseInt(index, 16),
    highWaterMark: kindNumber === HIGH_WATER_MARK,
    fromInvalidate: kindNumber === INVALIDATE,
  };
}

/** An entry's own point in the history. */
export function pointOfEntry(entry: ChangeEntry, fromInvalidate = false): HistoryPoint {
  return { ts: entry.ts, index: entry.index, highWaterMark: false, fromInvalidate };
}

/** mongod's `lsid.uid` without authentication: the SHA-256 of the empty user name. */
const NO_USER = new Binary(createHash("sha256").update("").digest());

/** The parts of an event common to every kind: token, type, times. */
export function eventHead(entry: ChangeEntry, operationType: string, fromInvalidate = false): Document {
  return {
    _id: resumeToken(pointOfEntry(entry, fromInvalidate)),
    operationType,
    clusterTime: entry.ts,
    wallTime: entry.wall,
  };
}

/** The transaction fields of an event written by a commit. */
export function transactionFields(entry: ChangeEntry): Document {
  if (entry.transaction === undefined) return {};
  return { txnNumber: entry.transaction.txnNumber, lsid: { ...entry.transaction.lsid, uid: NO_USER } };
}

export interface UpdateDescription {
  updatedFields: Document;
  removedFields: string[];
  truncatedArrays: { field: string; newSize: number }[];
  /** Paths whose segments could be read as array indexes or hold dots, with each segment as it is. */
  ambiguous: Map<string, (string | number)[]>;
}

/**
 * What an update changed, as mongod's change events describe it from its oplog diff: fields set (nested
 * documents compared field by field, arrays element by element), fields removed, arrays truncated.
 */
export function describeUpdate(before: Document, after: Document): UpdateDescription {
  const description: UpdateDescription = { updatedFields: {}, removedFields: [], truncatedArrays: [], ambiguous: new Map() };
  diffDocuments(before, after, [], description);
  return description;
}

function diffDocuments(before: Document, after: Document, path: (string | number)[], out: UpdateDescription): void {
  for (const key of Object.keys(before)) if (!(key in after)) record(out, [...path, key], undefined);
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before)) record(out, [...path, key], value);
    else diffValues(before[key], value, [...path, key], out);
  }
}

function diffValues(before: unknown, after: unknown, path: (string | number)[], out: UpdateDescription): void {
  if (sameStoredValue(before, after)) return;
  if (isDocument(before) && isDocument(after)) return diffDocuments(before, after, path, out);
  if (Array.isArray(before) && Array.isArray(after)) {
    if (after.length < before.length) out.truncatedArrays.push({ field: dotted(path), newSize: after.length });
    after.forEach((value, i) => (i < before.length ? diffValues(before[i], value, [...path, i], out) : record(out, [...path, i], value)));
    return;
  }
  record(out, path, after);
}

function record(out: UpdateDescription, path: (string | number)[], value: unknown): void {
  const name = dotted(path);
  if (value === undefined) out.removedFields.push(name);
  else out.updatedFields[name] = value;
  // A numeric field name reads as an array index, and a dotted one as a nested path: mongod spells both out.
  if (path.some((segment) => typeof segment === "string" && (/^\d+$/.test(segment) || segment.includes("."))))
    out.ambiguous.set(name, path);
}

function dotted(path: readonly (string | number)[]): string {
  return path.join(".");
}
