import { setTimeout as sleep } from "node:timers/promises";
import { MongoServerError, type ChangeStream, type Collection, type Document, type ResumeToken, type Timestamp } from "mongodb";
import { ClientError } from "../../errors";
import type { BookDocument, BookId } from "../../sales/documents";

/** A book's figures as one write left them: each present only when that write changed it. */
export interface FiguresChange {
  bookId: BookId;
  purchaseCount?: number;
  hasExtras?: boolean;
  /** When the write was applied, by the primary's clock: from it to delivery is the lag /metrics reports. */
  writtenAt: Date | undefined;
}

/** Why the feed opened its stream again. */
export type RestartReason = "error" | "history_lost" | "invalidated";

export interface ChangeFeedObservers {
  onChange(change: FiguresChange): void;
  /** The stream went on from now, not from where it was: changes in between were never seen. */
  onHistoryLost(): void;
  onRestart(reason: RestartReason, error: unknown): void;
}

export interface ChangeFeedTiming {
  /** How long one getMore waits for an event before the driver asks again. */
  maxAwaitTimeMs: number;
  /** The first wait before opening the stream again after an error; doubled on each failure in a row. */
  retryMs: number;
  retryMaxMs: number;
}

export const CHANGE_FEED_TIMING: ChangeFeedTiming = { maxAwaitTimeMs: 1_000, retryMs: 100, retryMaxMs: 5_000 };

/**
 * Only the updates subscribers need: a change of a book's count or flag. Every purchase changes the count
 * (its own `$inc`, in the same write as an embedded buyer's `$push`, or after an extra sale's append), so
 * nothing else is watched; the buyers' ids are projected out, as no event needs them.
 */
const PIPELINE: Document[] = [
  {
    $match: {
      $or: [
        { operationType: "update", "updateDescription.updatedFields.purchase_count": { $exists: true } },
        { operationType: "update", "updateDescription.updatedFields.has_extras": { $exists: true } },
        { operationType: { $in: ["invalidate", "drop", "rename", "dropDatabase"] } },
      ],
    },
  },
  {
    $project: {
      operationType: 1,
      documentKey: 1,
      clusterTime: 1,
      wallTime: 1,
      "updateDescription.updatedFields.purchase_count": 1,
      "updateDescription.updatedFields.has_extras": 1,
    },
  },
];

interface FiguresEvent {
  _id: ResumeToken;
  operationType: string;
  documentKey?: { _id: BookId };
  clusterTime?: Timestamp;
  wallTime?: Date;
  updateDescription?: { updatedFields?: { purchase_count?: number; has_extras?: boolean } };
}

// mongod's ChangeStreamHistoryLost: the resume point has left the oplog, and resuming from it can never succeed.
const HISTORY_LOST = 286;
// A deployment without change streams: mongod's standalone (40573), a server that does not implement them (238).
const NO_CHANGE_STREAMS = new Set([40573, 238]);

/**
 * The deployment offers no change streams, so no subscription can be served on it. Not the client's doing,
 * but what it must know: its message names the fix, which is the operator's.
 */
export class ChangeStreamsUnavailableError extends ClientError {
  override readonly name = "ChangeStreamsUnavailableError";
  readonly code = "REPLICA_SET_REQUIRED";
  constructor(why: string, options?: ErrorOptions) {
    super(
      `Subscriptions need MongoDB's change streams, which this deployment does not offer (${why}): run MongoDB as a replica set (a one-member replica set will do).`,
      options,
    );
  }
}

/**
 * One change stream on `sales` for the whole process, however many subscribers: it keeps the last resume
 * token (each event's, or the batch's when none came), and after any error opens the stream again from it,
 * so that no change is lost or seen twice. When the token has left the history (ChangeStreamHistoryLost)
 * it starts from now and says so (`onHistoryLost`), once the new stream is open, so that figures read then
 * are never older than the stream.
 */
export class ChangeFeed {
  private token: ResumeToken | undefined;
  private stream: ChangeStream<BookDocument, FiguresEvent> | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private opened: Promise<void> | undefined;
  private markOpened: () => void = () => {};
  private refuse: (error: Error) => void = () => {};

  constructor(
    private readonly sales: Collection<BookDocument>,
    private readonly observers: ChangeFeedObservers,
    private readonly timing: ChangeFeedTiming = CHANGE_FEED_TIMING,
  ) {}

  /** Resolves once the stream has been opened on the server: every change after that reaches `onChange`. */
  start(): Promise<void> {
    if (!this.opened) {
      this.opened = new Promise((resolve, reject) => {
        this.markOpened = resolve;
        this.refuse = reject;
      });
      this.running = this.run();
    }
    return this.opened;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.stream?.close().catch(() => {});
    await this.running;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let historyLost = false;
    while (!this.stopped) {
      const stream = this.sales.watch<BookDocument, FiguresEvent>(PIPELINE, {
        maxAwaitTimeMS: this.timing.maxAwaitTimeMs,
        ...(this.token ? { startAfter: this.token } : {}),
      });
      this.stream = stream;
      try {
        for (;;) {
          const event = await stream.tryNext();
          if (this.stopped) return;
          this.token = stream.resumeToken ?? this.token;
          failures = 0;
          this.markOpened();
          if (historyLost) {
            historyLost = false;
            this.observers.onHistoryLost();
          }
          if (event && this.deliver(event)) break;
        }
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof MongoServerError && NO_CHANGE_STREAMS.has(Number(error.code))) return this.refuseAll(error);
        historyLost = error instanceof MongoServerError && error.code === HISTORY_LOST;
        if (historyLost) this.token = undefined;
        this.observers.onRestart(historyLost ? "history_lost" : "error", error);
        await sleep(Math.min(this.timing.retryMs * 2 ** failures++, this.timing.retryMaxMs));
      } finally {
        await stream.close().catch(() => {});
      }
    }
  }

  /** Fails every subscriber waiting for the stream, and leaves the next `start` to try again. */
  private refuseAll(error: MongoServerError): void {
    this.refuse(new ChangeStreamsUnavailableError(error.message, { cause: error }));
    this.opened = undefined;
    this.running = undefined;
  }

  /** Hands a change on; true when the stream has ended (the collection was dropped or renamed) and must be opened again. */
  private deliver(event: FiguresEvent): boolean {
    if (event.operationType !== "update" || !event.documentKey) {
      // startAfter, unlike resumeAfter, takes an invalidate's token: the new stream begins after it.
      this.observers.onRestart("invalidated", undefined);
      return event.operationType === "invalidate";
    }
    const fields = event.updateDescription?.updatedFields ?? {};
    this.observers.onChange({
      bookId: event.documentKey._id,
      ...(typeof fields.purchase_count === "number" ? { purchaseCount: fields.purchase_count } : {}),
      ...(typeof fields.has_extras === "boolean" ? { hasExtras: fields.has_extras } : {}),
      writtenAt: event.wallTime ?? (event.clusterTime ? new Date(event.clusterTime.high * 1000) : undefined),
    });
    return false;
  }
}
