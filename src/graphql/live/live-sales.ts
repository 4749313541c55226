import DataLoader from "dataloader";
import type { Db } from "mongodb";
import type { Logger } from "pino";
import { helloOf, offersTransactions } from "../../db/topology";
import { retrieveBuyersWindow, type Buyer } from "../../sales/book-buyers";
import { bookIdKey, formatBookId } from "../../sales/book-ids";
import { checkWindowSize, foundBook, WITHOUT_BUYERS } from "../../sales/books";
import { salesCollection, type BookId, type BookWithoutBuyers } from "../../sales/documents";
import { InvalidInputError } from "../../sales/errors";
import { createSalesLoaders } from "../../sales/loaders";
import { retrieveLargestBooks } from "../../sales/stats";
import { ChangeFeed, ChangeStreamsUnavailableError, type ChangeFeedTiming, type FiguresChange, type RestartReason } from "./change-feed";
import { BoundedQueue, QueueBase, type SubscriberQueue } from "./queues";

/** The subscription fields, as /metrics labels them. */
export type LiveField = "bookSales" | "bestsellers" | "newBuyers";

/** A value for a subscriber, with when the write it shows was applied (none for a value read at the subscription's start). */
export interface LiveEvent<T> {
  value: T;
  /** What a later value replaces when a subscriber has not taken this one yet: the book's `bookIdKey`, or the list's. */
  key: string;
  writtenAt?: Date | undefined;
}

/**
 * The values of a conflated field (`bookSales`, `bestsellers`) for every subscriber of one operation at once: a
 * shared execution (src/graphql/live/shared-executions.ts) resolves each once, sets `audience`, and observes each of
 * its subscribers through `LiveSales.subscriber`. It takes the next value only once it has handed the last to every
 * subscriber, which is how `caughtUp` knows what they have been handed.
 *
 * Each key's latest document is kept here once (`current`, with the `writtenAt` of the change that made it), as the
 * base the next change merges with; the queue holds only the keys changed since the execution took them, in the
 * order they first changed, and a key is handed on as its document stands when it is taken. A key changed again
 * before it is taken keeps its place, and the change counts as conflated once for each subscriber (`audience`).
 */
export class SharedFeed<T> extends QueueBase<LiveEvent<T>> {
  private readonly current = new Map<string, LiveEvent<T>>();
  /** The keys changed since the execution last took them: a Set keeps the order in which each was first added. */
  private readonly changed = new Set<string>();
  /** How many subscribers take what this feed hands on. */
  audience = 1;
  /** The first subscriber starts from the read that made the feed; each later one costs a read of its own. */
  private readAtStart = true;
  private puts = 0;
  /** By key: the number of the last value put, and of the last one handed to every subscriber. */
  private readonly lastPut = new Map<string, number>();
  private readonly lastHandedOn = new Map<string, number>();
  /** The value the execution took last, by key and number, counted as handed on once it asks for the next. */
  private taken: { key: string; number: number } | undefined;
  private readonly waiters = new Set<{ target: ReadonlyMap<string, number>; resolve: () => void }>();

  constructor(
    onEnd: () => void,
    private readonly onConflated: (count: number) => void,
    /** Reads the values again and puts those newer than what was put last. */
    private readonly reread: () => Promise<void>,
  ) {
    super(onEnd);
  }

  /** The key's latest document, or undefined before its first. */
  document(key: string): T | undefined {
    return this.current.get(key)?.value;
  }

  /** Makes `value` the key's document; `writtenAt` when it shows a write. */
  put(key: string, value: T, writtenAt: Date | undefined): void {
    if (this.ended) return;
    this.puts += 1;
    this.lastPut.set(key, this.puts);
    const event: LiveEvent<T> = { value, key, writtenAt };
    this.current.set(key, event);
    if (this.handOver(event)) this.taken = { key, number: this.puts };
    else if (this.changed.has(key)) this.onConflated(this.audience);
    else this.changed.add(key);
  }

  protected take(): LiveEvent<T> | undefined {
    // Most reads find nothing changed (the execution keeps up): no iterator is made for them.
    if (this.changed.size === 0) return undefined;
    for (const key of this.changed) {
      this.changed.delete(key);
      this.taken = { key, number: this.lastPut.get(key) ?? 0 };
      return this.current.get(key);
    }
    return undefined;
  }

  override next(): Promise<IteratorResult<LiveEvent<T>>> {
    if (this.taken) {
      this.lastHandedOn.set(this.taken.key, this.taken.number);
      this.taken = undefined;
      this.release();
    }
    return super.next();
  }

  override return(): Promise<IteratorResult<LiveEvent<T>>> {
    const ended = super.return();
    this.release();
    return ended;
  }

  override fail(error: Error): void {
    super.fail(error);
    this.release();
  }

  /**
   * Resolves once every subscriber has been handed the values as they stand now: read again, since a write
   * acknowledged (here or on another process) may not have come through the change stream yet. A subscriber
   * that joins then starts from the last values handed on, never older than a write acknowledged before it joined.
   */
  async caughtUp(): Promise<void> {
    if (this.readAtStart) this.readAtStart = false;
    else await this.reread();
    const target = new Map(this.lastPut);
    if (this.reached(target)) return;
    await new Promise<void>((resolve) => this.waiters.add({ target, resolve }));
  }

  private reached(target: ReadonlyMap<string, number>): boolean {
    if (this.ended) return true;
    for (const [key, number] of target) if ((this.lastHandedOn.get(key) ?? 0) < number) return false;
    return true;
  }

  private release(): void {
    for (const waiter of this.waiters) {
      if (!this.reached(waiter.target)) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }
}

/** The fields whose subscribers get the latest value only, so that subscribers of one operation can share each value's resolving. */
export const CONFLATED_FIELDS: ReadonlySet<string> = new Set<LiveField>(["bookSales", "bestsellers"]);

/** One new buyer of a book, with how many buyers just before it the subscriber did not get. */
export interface NewBuyerEvent {
  buyer: Buyer;
  missedBefore: number;
  /** The book's count once this purchase was counted. */
  purchaseCount: number;
  writtenAt?: Date | undefined;
}

export interface LiveSalesObservers {
  /** A subscription started (`open` 1) or ended (-1). */
  onSubscription(field: LiveField, open: 1 | -1): void;
  /** One value handed to a subscriber's socket; `lagSeconds` from its write to now, when it shows a write. */
  onDelivered(field: LiveField, lagSeconds: number | undefined): void;
  /** Values replaced by a later one before the subscriber took them, or buyers dropped from a full queue. */
  onConflated(field: LiveField, count: number): void;
  onRestart(reason: RestartReason): void;
}

/** What a server's live sales report to, and how its change stream retries; by default nothing is reported. */
export interface LiveSalesOptions {
  observers?: LiveSalesObservers;
  logger?: Pick<Logger, "info" | "warn">;
  timing?: ChangeFeedTiming;
}

const UNOBSERVED: LiveSalesObservers = { onSubscription: () => {}, onDelivered: () => {}, onConflated: () => {}, onRestart: () => {} };
const UNLOGGED: Pick<Logger, "info" | "warn"> = { info: () => {}, warn: () => {} };

/** The most books one `bookSales` subscription names: a window's worth. */
export const MAX_LIVE_BOOKS = 100;
/** The most buyers a subscriber's queue holds; past it, the oldest are dropped and counted in `missedBefore`. */
export const BUYER_QUEUE_CAPACITY = 100;
/** The most buyers read to catch a book's subscribers up at once; older ones are counted as missed instead. */
const MAX_CATCH_UP = 1_000;
/** How long a failed read of new buyers waits before it is tried again (the database is away, or a failover is under way). */
const CATCH_UP_RETRY_MS = 1_000;

type BookListener = (change: FiguresChange) => void;

/** A bestseller list's one key: each list replaces the last. */
const LIST = "list";

/**
 * Live sales for one process: one change stream (`ChangeFeed`) fanned out in memory by book to every
 * subscriber. A subscriber's first value is read from the database once the stream is open, so no
 * change falls between the two; counts only grow, so a change older than what was read is ignored.
 */
export class LiveSales {
  private readonly feed: ChangeFeed;
  /** Each watched book's id and the listeners of its changes, by `bookIdKey`. */
  private readonly watched = new Map<string, { id: BookId; listeners: Set<BookListener> }>();
  private readonly bestsellers = new Map<number, BestsellerList>();
  private readonly buyerFeeds = new Map<string, BuyerFeed>();
  private readonly observers: LiveSalesObservers;
  private readonly logger: Pick<Logger, "info" | "warn">;

  constructor(
    private readonly db: Db,
    { observers = UNOBSERVED, logger = UNLOGGED, timing }: LiveSalesOptions = {},
  ) {
    this.observers = observers;
    this.logger = logger;
    this.feed = new ChangeFeed(
      salesCollection(db),
      {
        onChange: (change) => this.dispatch(change),
        onHistoryLost: () => void this.refreshAll(),
        onRestart: (reason, error) => {
          this.observers.onRestart(reason);
          this.logger.warn({ err: error, reason }, "change stream on sales opened again");
        },
      },
      timing,
    );
  }

  /** Why no subscription can be served here (the deployment is a standalone, which has no change streams), or undefined when they can. */
  async unavailable(): Promise<ChangeStreamsUnavailableError | undefined> {
    // Change streams, as transactions, need a replica set or a mongos.
    if (offersTransactions(await helloOf(this.db))) return undefined;
    return new ChangeStreamsUnavailableError("this MongoDB is a standalone server");
  }

  /** Opens the change stream, or refuses when the deployment has none. */
  private async started(): Promise<void> {
    const unavailable = await this.unavailable();
    if (unavailable) throw unavailable;
    await this.feed.start();
  }

  /** The books named, as they stand, then again after each change of their figures; the latest only, per book. */
  async bookSales(ids: readonly BookId[]): Promise<SharedFeed<BookWithoutBuyers>> {
    const keys = new Map(ids.map((id) => [bookIdKey(id), id]));
    if (keys.size > MAX_LIVE_BOOKS) throw new InvalidInputError(`ids takes at most ${MAX_LIVE_BOOKS} books, got ${keys.size}.`, "ids");
    await this.started();
    const early = new Map<string, FiguresChange>();
    const feed = new SharedFeed<BookWithoutBuyers>(
      () => keys.forEach((id) => this.unlisten(id, listener)),
      (count) => this.observers.onConflated("bookSales", count),
      () => this.reread([...keys.values()], listener),
    );
    const listener: BookListener = (change) => {
      const key = bookIdKey(change.bookId);
      const book = feed.document(key);
      // A change that arrives while the books are read is applied to what the read finds.
      if (!book) return void early.set(key, mergedChange(early.get(key), change));
      const changed = withFigures(book, change);
      if (changed !== book) feed.put(key, changed, change.writtenAt);
    };
    keys.forEach((id) => this.listen(id, listener));
    try {
      const books = await this.readBooks([...keys.values()]);
      for (const [key, id] of keys) {
        const book = foundBook(books.get(key) ?? null, id);
        const changed = early.get(key);
        feed.put(key, changed ? withFigures(book, changed) : book, undefined);
      }
    } catch (error) {
      void feed.return();
      throw error;
    }
    return feed;
  }

  /** The `top` books with the most purchases, as they stand, then again whenever a purchase changes the list. */
  async bestsellerList(top: number): Promise<SharedFeed<BookWithoutBuyers[]>> {
    checkWindowSize(top, "top");
    await this.started();
    let list = this.bestsellers.get(top);
    if (!list) {
      list = new BestsellerList(top, () => retrieveLargestBooks<BookWithoutBuyers>(this.db, top, WITHOUT_BUYERS), this.logger);
      this.bestsellers.set(top, list);
    }
    const watched = list;
    const feed = new SharedFeed<BookWithoutBuyers[]>(
      () => {
        watched.subscribers.delete(feed);
        if (watched.subscribers.size === 0) this.bestsellers.delete(top);
      },
      (count) => this.observers.onConflated("bestsellers", count),
      () => watched.refresh(undefined),
    );
    watched.subscribers.add(feed);
    try {
      feed.put(LIST, await watched.current(), undefined);
    } catch (error) {
      void feed.return();
      throw error;
    }
    return feed;
  }

  /** Each buyer of the book from now on, in purchase order, each once, or counted as missed. */
  async newBuyers(bookId: BookId): Promise<SubscriberQueue<NewBuyerEvent>> {
    await this.started();
    const key = bookIdKey(bookId);
    let feed = this.buyerFeeds.get(key);
    const queue = new BoundedQueue<NewBuyerEvent>(
      () => {
        feed?.subscribers.delete(queue);
        if (feed?.subscribers.size === 0) {
          feed.end();
          this.buyerFeeds.delete(key);
          this.unlisten(bookId, feed.listener);
        }
      },
      BUYER_QUEUE_CAPACITY,
      (count) => this.observers.onConflated("newBuyers", count),
    );
    try {
      const book = foundBook((await this.readBooks([bookId])).get(key) ?? null, bookId);
      feed = this.buyerFeeds.get(key);
      if (!feed) {
        feed = new BuyerFeed(bookId, book.purchase_count, (after, first) => this.readBuyers(bookId, after, first), this.logger);
        this.buyerFeeds.set(key, feed);
        this.listen(bookId, feed.listener);
      }
      feed.subscribers.add(queue);
      // A count read after the feed's own takes the buyers in between as before this subscriber's start.
      feed.startAt(queue, book.purchase_count);
    } catch (error) {
      void queue.return();
      throw error;
    }
    return this.observe("newBuyers", queue);
  }

  async stop(): Promise<void> {
    await this.feed.stop();
  }

  private listen(id: BookId, listener: BookListener): void {
    const key = bookIdKey(id);
    let book = this.watched.get(key);
    if (!book) this.watched.set(key, (book = { id, listeners: new Set() }));
    book.listeners.add(listener);
  }

  private unlisten(id: BookId, listener: BookListener): void {
    const key = bookIdKey(id);
    const book = this.watched.get(key);
    book?.listeners.delete(listener);
    if (book?.listeners.size === 0) this.watched.delete(key);
  }

  private dispatch(change: FiguresChange): void {
    const book = this.watched.get(bookIdKey(change.bookId));
    if (book) for (const listener of book.listeners) listener(change);
    if (change.purchaseCount !== undefined) for (const list of this.bestsellers.values()) list.consider(change);
  }

  /**
   * After the change stream lost its place: every book someone watches is read again (one query) and sent
   * as if it had changed, and every bestseller list is read again.
   */
  private async refreshAll(): Promise<void> {
    const ids = [...this.watched.values()].map(({ id }) => id);
    this.logger.warn({ books: ids.length }, "change stream history lost: started from now, and sent every watched book's current figures");
    try {
      const books = await this.readBooks(ids);
      for (const book of books.values()) this.dispatch(figuresOf(book));
      for (const list of this.bestsellers.values()) void list.refresh(undefined);
    } catch (error) {
      this.logger.warn({ err: error }, "reading the watched books again after history was lost failed; they update on their next purchase");
    }
  }

  /**
   * For a subscriber joining a shared execution: its books read again (one query, shared with other reads in the
   * tick) and handed to the execution's listener, which puts only what is newer than what it put last.
   */
  private async reread(ids: readonly BookId[], listener: BookListener): Promise<void> {
    try {
      for (const book of (await this.readBooks(ids)).values()) listener(figuresOf(book));
    } catch (error) {
      this.logger.warn({ err: error }, "reading a joining subscriber's books failed; it starts from the values last sent");
    }
  }

  /**
   * The books as they stand, by `bookIdKey`. Subscriptions starting together share one query per tick (a
   * thousand clients reconnecting at once send a few queries, not a thousand that would queue for the pool);
   * nothing is cached, since each must see the books as they are now.
   */
  private async readBooks(ids: readonly BookId[]): Promise<Map<string, BookWithoutBuyers>> {
    const books = await Promise.all(ids.map((id) => this.bookReads.load(id)));
    return new Map(books.filter((book) => book !== null).map((book) => [bookIdKey(book._id), book]));
  }

  private readonly bookReads = new DataLoader<BookId, BookWithoutBuyers | null, string>(
    async (ids) => {
      const found = await salesCollection(this.db)
        .find<BookWithoutBuyers>({ _id: { $in: [...ids] } }, { projection: WITHOUT_BUYERS })
        .toArray();
      const byKey = new Map(found.map((book) => [bookIdKey(book._id), book]));
      return ids.map((id) => byKey.get(bookIdKey(id)) ?? null);
    },
    { cache: false, cacheKeyFn: bookIdKey, maxBatchSize: MAX_LIVE_BOOKS * 10 },
  );

  /** Buyers after position `after` (exclusive; -1 for the first), at most `first`, through the same reads as `customersPurchased`. */
  private async readBuyers(bookId: BookId, after: number, first: number): Promise<Buyer[]> {
    // Fresh loaders for each read: a loader caches what it read, and these buyers are new each time.
    const loaders = createSalesLoaders(this.db);
    const book = foundBook(await loaders.book.load(bookId), bookId);
    const window = await retrieveBuyersWindow((slice) => loaders.extraSalesWindow.load(slice), book, {
      after: after < 0 ? null : after,
      before: null,
      first,
    });
    return window.buyers;
  }

  /** Counts, for /metrics, values replaced by a later one before a subscriber took them. */
  conflated(field: LiveField, count: number): void {
    this.observers.onConflated(field, count);
  }

  /** The queue, reporting each value it hands on to /metrics, with its lag from the write: one subscriber's. */
  observe<T extends { writtenAt?: Date | undefined }>(field: LiveField, queue: SubscriberQueue<T>): SubscriberQueue<T> {
    return new ObservedQueue(this.observers, field, queue);
  }

  /** One subscriber as /metrics counts it, for a subscriber that hands its values on itself (a shared execution's). */
  subscriber(field: LiveField): SubscriberMetrics {
    return new SubscriberMetrics(this.observers, field);
  }
}

/** One subscriber as /metrics counts it: open from its start to its end, and each value handed on, with its lag from the write. */
export class SubscriberMetrics {
  private open = true;

  constructor(
    private readonly observers: LiveSalesObservers,
    private readonly field: LiveField,
  ) {
    observers.onSubscription(field, 1);
  }

  /** A value was handed to the subscriber's socket; `writtenAt` when it shows a write. */
  delivered(writtenAt: Date | undefined): void {
    this.observers.onDelivered(this.field, writtenAt ? Math.max(0, (Date.now() - writtenAt.getTime()) / 1000) : undefined);
  }

  /** The subscriber ended: counted once, however often it is said. */
  end(): void {
    if (this.open) this.observers.onSubscription(this.field, -1);
    this.open = false;
  }
}

/** A subscriber's queue as /metrics sees it: a class, not closures, since thousands of idle subscribers each hold one. */
class ObservedQueue<T extends { writtenAt?: Date | undefined }> extends SubscriberMetrics implements SubscriberQueue<T> {
  constructor(
    observers: LiveSalesObservers,
    field: LiveField,
    private readonly queue: SubscriberQueue<T>,
  ) {
    super(observers, field);
  }

  async next(): Promise<IteratorResult<T>> {
    const result = await this.queue.next();
    if (!result.done) this.delivered(result.value.writtenAt);
    return result;
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return this.queue.return();
  }

  fail(error: Error): void {
    this.end();
    this.queue.fail(error);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** `book` with the change's figures where they are newer: counts only grow, and the flag is never unset. */
function withFigures<T extends BookWithoutBuyers>(book: T, change: FiguresChange): T {
  const count =
    change.purchaseCount !== undefined && change.purchaseCount > book.purchase_count ? change.purchaseCount : book.purchase_count;
  const flagged = book.has_extras || change.hasExtras === true;
  return count === book.purchase_count && flagged === book.has_extras ? book : { ...book, purchase_count: count, has_extras: flagged };
}

/** A book's figures as read: a change that no write has numbered (no `writtenAt`). */
function figuresOf(book: BookWithoutBuyers): FiguresChange {
  return { bookId: book._id, purchaseCount: book.purchase_count, hasExtras: book.has_extras, writtenAt: undefined };
}

function mergedChange(earlier: FiguresChange | undefined, later: FiguresChange): FiguresChange {
  if (!earlier) return later;
  return {
    bookId: later.bookId,
    purchaseCount: Math.max(earlier.purchaseCount ?? 0, later.purchaseCount ?? 0),
    hasExtras: earlier.hasExtras === true || later.hasExtras === true,
    writtenAt: later.writtenAt,
  };
}

/** One `top` of the bestsellers, shared by its subscribers: read from the index only when a purchase may change it. */
class BestsellerList {
  readonly subscribers = new Set<SharedFeed<BookWithoutBuyers[]>>();
  private books: Promise<BookWithoutBuyers[]> | undefined;
  /** The read running, or the last one. */
  private reading: Promise<void> = Promise.resolve();
  /** The read that follows it, for the changes that came meanwhile (the last one's write): it may not show them. */
  private queued: { change: { writtenAt: Date | undefined } | undefined; done: Promise<void> } | undefined;

  constructor(
    private readonly top: number,
    private readonly read: () => Promise<BookWithoutBuyers[]>,
    private readonly logger: Pick<Logger, "warn">,
  ) {}

  current(): Promise<BookWithoutBuyers[]> {
    this.books ??= this.read().catch((error: unknown) => {
      this.books = undefined;
      throw error;
    });
    return this.books;
  }

  /** Reads the list again when the purchase is of a book on it, or brings a book to its last place. */
  consider(change: FiguresChange): void {
    void this.current().then(
      (books) => {
        const last = books.at(-1);
        const onList = books.some((book) => bookIdKey(book._id) === bookIdKey(change.bookId));
        if (books.length < this.top || onList || (last && (change.purchaseCount ?? 0) >= last.purchase_count)) void this.refresh(change);
      },
      () => {},
    );
  }

  /** One read at a time; changes during it make one more read after it. Resolves once a read begun after the call has published. */
  refresh(change: { writtenAt: Date | undefined } | undefined): Promise<void> {
    if (this.queued) {
      if (change) this.queued.change = change;
      return this.queued.done;
    }
    const queued: { change: { writtenAt: Date | undefined } | undefined; done: Promise<void> } = { change, done: Promise.resolve() };
    queued.done = this.reading.then(() => {
      this.queued = undefined;
      return this.readAndPublish(queued.change);
    });
    this.queued = queued;
    this.reading = queued.done;
    return queued.done;
  }

  private async readAndPublish(change: { writtenAt: Date | undefined } | undefined): Promise<void> {
    try {
      const [before, after] = await Promise.all([this.current(), this.read()]);
      this.books = Promise.resolve(after);
      if (sameList(before, after)) return;
      for (const subscriber of this.subscribers) subscriber.put(LIST, after, change?.writtenAt);
    } catch (error) {
      this.logger.warn(
        { err: error, top: this.top },
        "reading the bestsellers after a purchase failed; the list updates on the next purchase",
      );
    }
  }
}

function sameList(before: readonly BookWithoutBuyers[], after: readonly BookWithoutBuyers[]): boolean {
  return (
    before.length === after.length &&
    before.every(
      (book, index) => bookIdKey(book._id) === bookIdKey(after[index]!._id) && book.purchase_count === after[index]!.purchase_count,
    )
  );
}

/**
 * One book's new buyers, shared by its subscribers: each change of the count reads the buyers between the
 * last count and the new one (the count never leads the stored buyers, so they are all there), one read
 * at a time, and hands them in order to every subscriber whose start they follow.
 */
class BuyerFeed {
  readonly subscribers = new Set<BoundedQueue<NewBuyerEvent>>();
  private readonly starts = new WeakMap<BoundedQueue<NewBuyerEvent>, number>();
  private target: { count: number; writtenAt: Date | undefined };
  private reading = false;
  private retry: NodeJS.Timeout | undefined;
  readonly listener: BookListener = (change) => {
    if (change.purchaseCount === undefined || change.purchaseCount <= this.target.count) return;
    this.target = { count: change.purchaseCount, writtenAt: change.writtenAt };
    void this.catchUp();
  };

  constructor(
    readonly bookId: BookId,
    /** Buyers before this position have been handed on, or predate every subscriber. */
    private position: number,
    private readonly read: (after: number, first: number) => Promise<Buyer[]>,
    private readonly logger: Pick<Logger, "warn">,
  ) {
    this.target = { count: position, writtenAt: undefined };
  }

  /** The subscriber gets the buyers from position `count` on. */
  startAt(queue: BoundedQueue<NewBuyerEvent>, count: number): void {
    this.starts.set(queue, count);
    if (count > this.target.count) this.listener({ bookId: this.bookId, purchaseCount: count, writtenAt: undefined });
  }

  private async catchUp(): Promise<void> {
    if (this.reading) return;
    clearTimeout(this.retry);
    this.reading = true;
    try {
      while (this.position < this.target.count) {
        const { count, writtenAt } = this.target;
        const skipped = Math.max(0, count - this.position - MAX_CATCH_UP);
        if (skipped > 0) this.miss(skipped);
        const buyers = await this.read(this.position - 1, Math.min(count - this.position, BUYER_QUEUE_CAPACITY));
        if (buyers.length === 0) break;
        for (const buyer of buyers) this.handOn(buyer, writtenAt);
        this.position = buyers.at(-1)!.position + 1;
      }
    } catch (error) {
      this.logger.warn({ err: error, bookId: formatBookId(this.bookId) }, "reading a book's new buyers failed; trying again shortly");
      this.retry = setTimeout(() => void this.catchUp(), CATCH_UP_RETRY_MS);
    } finally {
      this.reading = false;
    }
  }

  /** Stops retrying a failed read: the last subscriber has gone. */
  end(): void {
    clearTimeout(this.retry);
  }

  private miss(count: number): void {
    for (const subscriber of this.subscribers) subscriber.miss(count);
    this.position += count;
  }

  private handOn(buyer: Buyer, writtenAt: Date | undefined): void {
    // Positions count from 0: the purchase at position p is the book's (p + 1)th.
    const event = { buyer, missedBefore: 0, purchaseCount: buyer.position + 1, writtenAt };
    for (const subscriber of this.subscribers) if (buyer.position >= (this.starts.get(subscriber) ?? 0)) subscriber.put(event);
  }
}
