import { Timestamp, type Document } from "bson";
import type { ChangeLog } from "../change-streams/change-log";
import { ErrorCode, MongoCommandError } from "../errors";
import type { Storage, WriteGuard } from "../query-engine/storage";
import { isDocument } from "../values/values";

/** The commands mongod 7.0 reads at a snapshot outside transactions (`readConcern: {level: "snapshot"}`). */
export const SNAPSHOT_READ_COMMANDS: ReadonlySet<string> = new Set(["find", "aggregate", "distinct"]);

/** mongod's `minSnapshotHistoryWindowInSeconds`: how far back a snapshot read may go. */
export const SNAPSHOT_HISTORY_WINDOW_MS = 300_000;

/** A snapshot read never writes (its commands are reads); a write reaching one is the stand-in's bug, not the client's. */
const READ_ONLY: WriteGuard = {
  beforeWrite: () => {
    throw new Error("a snapshot read wrote");
  },
  beforeCatalogChange: () => {
    throw new Error("a snapshot read changed the catalog");
  },
};

interface Kept {
  readonly storage: Storage;
  readonly keptAt: number;
}

/**
 * Reads at a cluster time outside transactions (mongod 5.0's snapshot reads). A read without `atClusterTime`
 * reads the data as of the last write and keeps that snapshot under its time, which the reply names
 * (`atClusterTime`) and the driver sends back with the session's later reads. The snapshots are the
 * copy-on-write roots transactions read (one per collection), kept for mongod's five-minute window. The data as
 * of any other time is not kept (the history of writes lacks a delete's document): a read at a time no earlier
 * read kept, with writes since, is refused loudly.
 */
export class SnapshotReads {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly live: Storage,
    private readonly history: ChangeLog,
  ) {}

  /** The storage to read at the read concern's time, and that time. */
  at(readConcern: Document): { storage: Storage; atClusterTime: Timestamp } {
    this.forgetOld();
    const asked: unknown = readConcern["atClusterTime"];
    const lastWrite = this.history.now();
    if (asked === undefined) return { storage: this.keep(lastWrite), atClusterTime: lastWrite };
    if (!(asked instanceof Timestamp))
      throw new MongoCommandError(ErrorCode.TypeMismatch, "BSON field 'atClusterTime' is the wrong type, expected type 'timestamp'");
    const kept = this.kept.get(asked.toString());
    if (kept !== undefined) return { storage: kept.storage, atClusterTime: asked };
    if (asked.greaterThan(lastWrite))
      throw new MongoCommandError(
        ErrorCode.InvalidOptions,
        `readConcern atClusterTime value ${timestampText(asked)} must not be greater than the current clusterTime ${timestampText(lastWrite)}`,
      );
    // Nothing was written at or after the asked time: the data now is the data then.
    if (asked.equals(lastWrite)) return { storage: this.keep(lastWrite), atClusterTime: asked };
    if (asked.high * 1000 < Date.now() - SNAPSHOT_HISTORY_WINDOW_MS)
      throw new MongoCommandError(
        ErrorCode.SnapshotTooOld,
        `Read timestamp ${timestampText(asked)} is older than the oldest available timestamp.`,
      );
    throw new MongoCommandError(
      ErrorCode.NotImplemented,
      `offline server: reading at atClusterTime ${timestampText(asked)}, a time no earlier snapshot read kept, with writes since, is not supported`,
    );
  }

  private keep(time: Timestamp): Storage {
    const key = time.toString();
    const existing = this.kept.get(key);
    if (existing !== undefined) return existing.storage;
    const storage = this.live.snapshot(READ_ONLY);
    this.kept.set(key, { storage, keptAt: Date.now() });
    return storage;
  }

  /** Drops the snapshots past mongod's window, so that what they hold of old versions can go. */
  private forgetOld(): void {
    const cutoff = Date.now() - SNAPSHOT_HISTORY_WINDOW_MS;
    for (const [key, { keptAt }] of this.kept) if (keptAt < cutoff) this.kept.delete(key);
  }
}

/** The read concern of a snapshot read outside transactions, or undefined when the command is not one. */
export function snapshotReadConcern(body: Document): Document | undefined {
  const readConcern: unknown = body["readConcern"];
  if (!isDocument(readConcern) || readConcern["level"] !== "snapshot") return undefined;
  return body["txnNumber"] === undefined ? readConcern : undefined;
}

/** The reply with the time it read at, where mongod puts it: the cursor's `atClusterTime`, or (distinct) the reply's. */
export function withAtClusterTime(reply: Document, atClusterTime: Timestamp): Document {
  if (reply["ok"] !== 1) return reply;
  const cursor: unknown = reply["cursor"];
  if (isDocument(cursor)) return { ...reply, cursor: { ...cursor, atClusterTime } };
  return { ...reply, atClusterTime };
}

function timestampText(time: Timestamp): string {
  return `Timestamp(${time.high}, ${time.low})`;
}
