import { Timestamp, type Document, type Long, type UUID } from "bson";
import { ErrorCode, MongoCommandError } from "../errors";
import type { CatalogWrite, Collection, DocumentWrite } from "../query-engine/storage";

/**
 * mongod's default oplog is 5% of the disk, at least 990 MB; the stand-in keeps its history in the heap it
 * shares with the API, so it keeps far less by default. Set with `oplogSizeMB` (mongod's `--oplogSize`).
 */
export const DEFAULT_OPLOG_SIZE_BYTES = 64 * 1024 * 1024;

/** What an entry costs beyond the documents it holds: its fields and the array slot (an estimate, so the bound is honest). */
const ENTRY_OVERHEAD_BYTES = 200;

export type ChangeOperation = DocumentWrite["operation"] | CatalogWrite["operation"];

/** The session and number of the transaction whose commit wrote an entry, as mongod's events name them. */
export interface TransactionOrigin {
  readonly txnNumber: Long;
  readonly lsid: Document;
}

/** One write as the history holds it: enough to build its change event for any stream, at any time later. */
export interface ChangeEntry {
  /** The write's cluster time; the writes of one transaction share their commit's. */
  readonly ts: Timestamp;
  /** Its position among its transaction's writes (mongod's `txnOpIndex`); 0 outside transactions. */
  readonly index: number;
  readonly wall: Date;
  readonly operation: ChangeOperation;
  readonly db: string;
  /** None for `dropDatabase`. */
  readonly coll?: string;
  /** A rename's new namespace. */
  readonly to?: { readonly db: string; readonly coll: string };
  /** The collection's UUID (mongod's expanded events show it as `collectionUUID`). */
  readonly uuid?: UUID;
  /** A catalog change's `operationDescription` (expanded events). */
  readonly description?: Document;
  /** The written document's key (`{_id}`), for document events. */
  readonly key?: Document;
  /**
   * The document as it was, kept for an update (its description is computed from it when a stream asks) and
   * where the collection keeps pre-images; stored documents are never mutated, so this is a reference, not a copy.
   */
  readonly before?: Document;
  /** The document as written (insert, update, replace). */
  readonly after?: Document;
  /** Whether the collection kept pre- and post-images when it was written (`changeStreamPreAndPostImages`). */
  readonly images: boolean;
  readonly transaction?: TransactionOrigin;
  /** What it counts against the history's size: its documents' BSON sizes and a fixed overhead. */
  readonly bytes: number;
}

/** A write as the storage reports it: the entry without what the history gives it. */
export type ChangeWrite = Omit<ChangeEntry, "ts" | "index" | "wall" | "transaction">;

/** A point in the history, as a resume token names it: an entry's time and index, or (high-water mark) all entries up to a time. */
export interface HistoryPoint {
  readonly ts: Timestamp;
  readonly index: number;
  /** True for a high-water mark: no event at this point, every entry up to `ts` was seen. */
  readonly highWaterMark: boolean;
  /** The token of an `invalidate` event: `startAfter` it starts a new stream after the invalidating entry. */
  readonly fromInvalidate: boolean;
}

/** A stream of writes waiting for the next entry; called once, on the first append after it registered. */
export type ChangeWaiter = () => void;

/**
 * The replica set's history of writes, as mongod's oplog: entries in commit order, each with its cluster
 * time, kept until their total size passes `maxBytes` (then the oldest go, as a capped oplog's do). Change
 * streams read it; a stream whose resume point has gone answers 286 ChangeStreamHistoryLost. Streams
 * waiting for the next entry register a waiter and cost nothing until an append wakes them.
 */
export class ChangeLog {
  private entries: ChangeEntry[] = [];
  /** Where the kept entries start in `entries` (the ones before are dropped, compacted away now and then). */
  private head = 0;
  /** Position (in appends since start) of `entries[head]`. */
  private first = 0;
  private bytes = 0;
  /**
   * The newest point the history no longer holds: first the set's start (mongod's oplog begins with the
   * set's initiation, so a stream cannot start before it), then each entry dropped to bound the history.
   */
  private lastDropped: { readonly ts: Timestamp; readonly index: number };
  private lastTime = new Timestamp({ t: 0, i: 0 });
  private waiters = new Set<ChangeWaiter>();

  constructor(readonly maxBytes = DEFAULT_OPLOG_SIZE_BYTES) {
    this.lastDropped = { ts: this.tick(), index: 0 };
  }

  /** A new cluster time, after every one issued before (seconds since the epoch, then a counter within the second). */
  tick(): Timestamp {
    const seconds = Math.floor(Date.now() / 1000);
    const last = this.lastTime;
    const t = Math.max(seconds, last.t);
    this.lastTime = new Timestamp({ t, i: t === last.t ? last.i + 1 : 1 });
    return this.lastTime;
  }

  /** The latest cluster time: the last write's, or the set's start. */
  now(): Timestamp {
    return this.lastTime;
  }

  /** Appends the writes of one commit (one write outside transactions), all at one new cluster time when they are a transaction's. */
  append(writes: readonly ChangeWrite[], transaction?: TransactionOrigin): void {
    if (writes.length === 0) return;
    const wall = new Date();
    const shared = transaction === undefined ? undefined : this.tick();
    writes.forEach((write, index) => {
      const bytes = ENTRY_OVERHEAD_BYTES + write.bytes;
      const entry: ChangeEntry = {
        ...write,
        ts: shared ?? this.tick(),
        index: shared === undefined ? 0 : index,
        wall,
        bytes,
        ...(transaction === undefined ? {} : { transaction }),
      };
      this.entries.push(entry);
      this.bytes += bytes;
    });
    this.trim();
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  /** Calls `wake` once, at the next append; the returned function cancels it. */
  waitForAppend(wake: ChangeWaiter): () => void {
    const once: ChangeWaiter = () => wake();
    this.waiters.add(once);
    return () => this.waiters.delete(once);
  }

  /** The entry at a position, if it is still kept. */
  at(position: number): ChangeEntry | undefined {
    return position < this.first ? undefined : this.entries[this.head + position - this.first];
  }

  /** What the entries kept count against the bound, in bytes. */
  get size(): number {
    return this.bytes;
  }

  /** The position of the oldest entry kept: a stream behind it has lost its history. */
  get start(): number {
    return this.first;
  }

  /** The position the next append will take: a stream opened now starts here. */
  get end(): number {
    return this.first + this.entries.length - this.head;
  }

  /**
   * The position of the first entry after `point` (`inclusive`: at or after it), or 286 when entries after
   * the point have been dropped from the history.
   */
  positionAfter(point: HistoryPoint, inclusive: boolean): number {
    if (compareToPoint(this.lastDropped, point) >= (inclusive ? 0 : 1)) throw historyLost();
    let low = this.head;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const entry = this.entries[middle] as ChangeEntry;
      const order = compareToPoint(entry, point);
      if (order < 0 || (order === 0 && !inclusive)) low = middle + 1;
      else high = middle;
    }
    return this.first + low - this.head;
  }

  /** Drops the oldest entries until the history fits its size (always keeping the newest); compacts once most of the array is dropped entries. */
  private trim(): void {
    while (this.bytes > this.maxBytes && this.head < this.entries.length - 1) {
      const entry = this.entries[this.head] as ChangeEntry;
      this.bytes -= entry.bytes;
      this.lastDropped = entry;
      this.head++;
      this.first++;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}

/** A document write as the history keeps it. */
export function changeOf(collection: Collection, { operation, before, after }: DocumentWrite): ChangeWrite {
  const keepBefore = before !== undefined && (operation === "update" || collection.keepsImages);
  const id: unknown = (after ?? before)?.doc["_id"];
  return {
    operation,
    db: collection.database,
    coll: collection.name,
    uuid: collection.uuid,
    key: { _id: id },
    ...(keepBefore ? { before: before.doc } : {}),
    ...(after === undefined ? {} : { after: after.doc }),
    images: collection.keepsImages,
    bytes: (keepBefore ? before.bytes : 0) + (after?.bytes ?? 0),
  };
}

/** A catalog change as the history keeps it. */
export function catalogChangeOf({ operation, db, collection, description, to }: CatalogWrite): ChangeWrite {
  return {
    operation,
    db,
    ...(collection === undefined ? {} : { coll: collection.name, uuid: collection.uuid }),
    ...(to === undefined ? {} : { to }),
    ...(description === undefined ? {} : { description }),
    images: false,
    bytes: 0,
  };
}

/** An entry against a point: negative when the entry comes before it. A high-water mark comes after every entry of its time. */
function compareToPoint(entry: { readonly ts: Timestamp; readonly index: number }, point: HistoryPoint): number {
  const byTime = entry.ts.compare(point.ts);
  if (byTime !== 0) return byTime;
  if (point.highWaterMark) return -1;
  return entry.index - point.index;
}

export function historyLost(): MongoCommandError {
  return new MongoCommandError(
    ErrorCode.ChangeStreamHistoryLost,
    "Resume of change stream was not possible, as the resume point may no longer be in the oplog.",
    {
      errorLabels: ["NonResumableChangeStreamError"],
    },
  );
}
