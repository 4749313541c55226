import { BSON, Long, type Document } from "bson";
import { ErrorCode, MongoCommandError } from "../errors";
import { MAX_BSON_SIZE } from "./storage";

export const DEFAULT_FIRST_BATCH = 101;
/** mongod's cursorTimeoutMillis default: idle cursors are reaped after ten minutes. */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

/** Where a cursor's documents come from: a running plan (pulled batch by batch) or a finished result list. */
export interface ResultSource {
  /** The next document, or undefined when there are no more. */
  next(): Document | undefined;
}

/** A source that never runs dry (a change stream): an empty batch leaves the cursor open, and each batch says where it ended. */
export interface TailingSource extends ResultSource {
  /** Set once the source has nothing more to give, ever (an invalidated stream): the cursor closes after this batch. */
  readonly closed: boolean;
  /** The resume token of the point the last batch reached (mongod's `postBatchResumeToken`). */
  postBatchResumeToken(): Document;
}

function isTailing(source: ResultSource): source is TailingSource {
  return "postBatchResumeToken" in source;
}

/** Thrown by a getMore on a tailing cursor with nothing to return yet: the server answers it again at `deadline` or at the next write. */
export class AwaitingData extends Error {
  constructor(readonly deadline: number) {
    super("the getMore waits for data");
  }
}

/** mongod's wait for an `awaitData` getMore sent without `maxTimeMS`. */
export const DEFAULT_AWAIT_DATA_MS = 1000;

export function arraySource(results: readonly Document[]): ResultSource {
  let position = 0;
  return { next: () => results[position++] };
}

interface OpenCursor {
  readonly namespace: string;
  readonly source: ResultSource;
  /** A document that did not fit in the previous batch's 16 MiB. */
  held: Document | undefined;
  lastUsed: number;
  /** Set when the collection the cursor reads is dropped: its next getMore fails, as mongod's killed plan does. */
  killedBecause?: string;
}

/**
 * Takes up to `limit` documents, stopping before the reply would pass 16 MiB (but always at least
 * one document, so a cursor always makes progress); the document that did not fit is held for the next batch.
 */
function takeBatch(cursor: OpenCursor, limit: number): { batch: Document[]; exhausted: boolean } {
  const batch: Document[] = [];
  let bytes = 0;
  while (batch.length < limit) {
    const doc = cursor.held ?? cursor.source.next();
    cursor.held = undefined;
    if (doc === undefined) return { batch, exhausted: isTailing(cursor.source) ? cursor.source.closed : true };
    bytes += BSON.calculateObjectSize(doc);
    if (batch.length > 0 && bytes > MAX_BSON_SIZE) {
      cursor.held = doc;
      break;
    }
    batch.push(doc);
  }
  return { batch, exhausted: false };
}

function batchEnd(source: ResultSource): Document {
  return isTailing(source) ? { postBatchResumeToken: source.postBatchResumeToken() } : {};
}

/**
 * Open cursors. Each pulls its documents from its source only as batches are asked for, so opening
 * one costs its first batch; a plan's source reads the collection as it is when each batch is taken.
 */
export class CursorRegistry {
  private readonly cursors = new Map<string, OpenCursor>();
  // Start at a random id so ids from one server run are not mistaken for another's.
  private nextId = Long.fromNumber(1 + Math.floor(Math.random() * 2 ** 31));

  /** The reply's `cursor` field for a fresh source: `{id, ns, firstBatch}`. */
  open(namespace: string, source: ResultSource, batchSize: number, singleBatch: boolean): Document {
    this.reapIdle();
    const cursor: OpenCursor = { namespace, source, held: undefined, lastUsed: Date.now() };
    const { batch, exhausted } = takeBatch(cursor, batchSize);
    let id = Long.ZERO;
    if (!singleBatch && !exhausted) {
      id = this.nextId;
      this.nextId = this.nextId.add(1);
      this.cursors.set(id.toString(), cursor);
    }
    return { id, ns: namespace, firstBatch: batch, ...batchEnd(cursor.source) };
  }

  /**
   * The next batch; on a tailing cursor with nothing to return, `AwaitingData` until `awaitDeadline` (the
   * getMore's wait, fixed when it first arrived), after which the empty batch is the answer.
   */
  getMore(id: Long, namespace: string, batchSize: number, awaitDeadline?: number): Document {
    const cursor = this.cursors.get(id.toString());
    if (!cursor) throw new MongoCommandError(ErrorCode.CursorNotFound, `cursor id ${id.toString()} not found`);
    if (cursor.killedBecause !== undefined) {
      this.cursors.delete(id.toString());
      throw new MongoCommandError(ErrorCode.QueryPlanKilled, `Executor error during getMore :: caused by :: ${cursor.killedBecause}`);
    }
    if (cursor.namespace !== namespace) {
      throw new MongoCommandError(
        ErrorCode.Unauthorized,
        `Requested getMore on namespace '${namespace}', but cursor belongs to a different namespace ${cursor.namespace}`,
      );
    }
    const { batch, exhausted } = this.takeOrKill(id, cursor, batchSize);
    cursor.lastUsed = Date.now();
    if (batch.length === 0 && !exhausted && awaitDeadline !== undefined && isTailing(cursor.source) && Date.now() < awaitDeadline)
      throw new AwaitingData(awaitDeadline);
    if (exhausted) this.cursors.delete(id.toString());
    return { id: exhausted ? Long.ZERO : id, ns: namespace, nextBatch: batch, ...batchEnd(cursor.source) };
  }

  /** A batch; a source's error (a change stream's lost history) kills the cursor, as mongod's failed getMore does. */
  private takeOrKill(id: Long, cursor: OpenCursor, batchSize: number): { batch: Document[]; exhausted: boolean } {
    try {
      return takeBatch(cursor, batchSize);
    } catch (error) {
      this.cursors.delete(id.toString());
      throw error;
    }
  }

  /** Marks every cursor on a namespace `reads` accepts as killed, so that its next getMore answers QueryPlanKilled (175). */
  killReaders(reads: (namespace: string) => boolean): void {
    // A change stream outlives its collection: it reports the drop itself (then invalidates).
    for (const cursor of this.cursors.values())
      if (reads(cursor.namespace) && !isTailing(cursor.source)) cursor.killedBecause = "collection dropped";
  }

  /** Whether the cursor is a change stream's; undefined when there is no such cursor. */
  isTailing(id: Long): boolean | undefined {
    const cursor = this.cursors.get(id.toString());
    return cursor === undefined ? undefined : isTailing(cursor.source);
  }

  /** Removes the cursor if it exists; true when it did. */
  kill(id: Long): boolean {
    return this.cursors.delete(id.toString());
  }

  private reapIdle(): void {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const [id, cursor] of this.cursors) if (cursor.lastUsed < cutoff) this.cursors.delete(id);
  }
}
