import { Mutex } from "async-mutex";
import DataLoader from "dataloader";
import type { Db, Document } from "mongodb";
import { extraSalesCollection, type BookId, type BookDocument, type BookWithoutBuyers } from "./documents";
import { bookIdKey } from "./book-ids";
import { retrieveBooksByIds } from "./books";
import type { ExtraSalesWindow, PageSlice } from "./book-buyers";
import { createPoolShare, type PoolShare } from "./pool-share";
import { purchaseKey, retrievePurchasedBy, type PurchaseQuestion } from "./purchase-history";
import { retrieveAlsoBoughtSamples } from "./recommendations";
import { createTurns } from "./turns";

/** Per-request batching and caching: every read of one kind within a tick becomes one query. */
export interface SalesLoaders {
  /** Books with their embedded buyers, as a window of them reads them. */
  readonly book: DataLoader<BookId, BookDocument | null, string>;
  /**
   * Books as the operation shows them: `book`'s, or without their embedded buyers (up to 50 ids, most of a book's
   * bytes) once `leaveOutEmbeddedBuyers` was called, as no field of the operation reads them.
   */
  readonly shownBook: DataLoader<BookId, BookWithoutBuyers | null, string>;
  /** Says that no field of the operation reads a book's embedded buyers (only `Book.customersPurchased` does). */
  leaveOutEmbeddedBuyers(): void;
  readonly extraSalesWindow: DataLoader<ExtraSalesWindow, PageSlice[], string>;
  readonly purchasedBy: DataLoader<PurchaseQuestion, boolean, string>;
  /** The buyers `alsoBought` counts over, per book: one query for every book of a request. */
  readonly alsoBoughtSample: DataLoader<BookId, string[], string>;
  /**
   * Resolves when the next of the books a router names one by one (`_entities`) may be looked up: KEYS_PER_READ of them
   * per turn of the event loop, rather than 1,000 in one synchronous stretch of it.
   */
  referenceTurn(): Promise<void>;
}

/**
 * Keys one batched read names at most: as many books as a window of them. A batch of 1,000 books was one
 * command holding its connection, and the database, for as long as all of them take; in reads of 100, the
 * request's reads take turns with other requests' at the database (each in the request's share of the pool).
 */
export const KEYS_PER_READ = 100;

/**
 * Windows of buyers one aggregation reads at most. Each page it reads finds its own windows by key, so its
 * work grows with the windows it holds, not with the square of them; in batches of 50, one command holds a
 * connection of the request's share for a bounded time.
 */
export const WINDOWS_PER_READ = 50;

function windowKey(window: ExtraSalesWindow): string {
  const book = bookIdKey(window.bookId);
  return "page" in window ? `${book}#${window.page}[${window.skip}+${window.limit}]` : `${book}#${window.fromPage}..[-${window.tail}]`;
}

/**
 * Each loader is made on its first use: most requests use one of them, or none. `batch: false`
 * exists for the benchmark that shows what batching saves; the API always batches. Every batch is read
 * within the request's `share` of the pool (by default, none: a loader used outside a request).
 */
export function createSalesLoaders(
  db: Db,
  { batch = true, share = createPoolShare(Infinity) }: { batch?: boolean; share?: PoolShare } = {},
): SalesLoaders {
  return new LazySalesLoaders(db, batch, share);
}

/** A class for its getters: V8 keeps an object literal's own accessors, and what they hold, until a full collection (see `createPoolShare`). */
class LazySalesLoaders implements SalesLoaders {
  private bookLoader: SalesLoaders["book"] | undefined;
  private bookWithoutBuyersLoader: SalesLoaders["shownBook"] | undefined;
  private buyersRead = true;
  private extraSalesWindowLoader: SalesLoaders["extraSalesWindow"] | undefined;
  private purchasedByLoader: SalesLoaders["purchasedBy"] | undefined;
  private alsoBoughtSampleLoader: SalesLoaders["alsoBoughtSample"] | undefined;
  private referenceTurns: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Db,
    private readonly batch: boolean,
    private readonly share: PoolShare,
  ) {}

  get book(): SalesLoaders["book"] {
    return (this.bookLoader ??= this.bookLoaderReading((ids) => retrieveBooksByIds(this.db, ids)));
  }

  get shownBook(): SalesLoaders["shownBook"] {
    if (this.buyersRead) return this.book;
    // Made once: `_entities` reads this getter once per representation.
    return (this.bookWithoutBuyersLoader ??= this.bookLoaderReading((ids) => retrieveBooksByIds(this.db, ids, false)));
  }

  /**
   * A loader of books whose batches are read one after another: a request naming 1,000 books sent its ten reads at
   * once, and their ten replies came back together, so that the API deserialized 1,000 books and completed as many
   * entities in one stretch of its event loop (30 to 50 ms) while every other request waited. One at a time, each
   * reply of 100 books is a stretch of its own (a few ms), with turns for other requests between them; the database
   * answers them one after another anyway.
   */
  private bookLoaderReading<T extends BookWithoutBuyers>(
    retrieve: (ids: readonly BookId[]) => Promise<T[]>,
  ): DataLoader<BookId, T | null, string> {
    const { batch, share } = this;
    const inTurn = new Mutex();
    // `acquire` and its release in a native async function, not `runExclusive`: see PoolShare's `exclusive` for why.
    const readInTurn = async (ids: readonly BookId[]) => {
      const release = await inTurn.acquire();
      try {
        return await share.use(1, () => loadBooks(ids, retrieve));
      } finally {
        release();
      }
    };
    return new DataLoader(readInTurn, {
      cacheKeyFn: bookIdKey,
      batch,
      maxBatchSize: KEYS_PER_READ,
    });
  }

  referenceTurn(): Promise<void> {
    return (this.referenceTurns ??= createTurns(KEYS_PER_READ))();
  }

  leaveOutEmbeddedBuyers(): void {
    this.buyersRead = false;
  }

  get extraSalesWindow(): SalesLoaders["extraSalesWindow"] {
    const { db, batch, share } = this;
    return (this.extraSalesWindowLoader ??= new DataLoader((windows) => share.use(1, () => loadExtraSalesWindows(db, windows)), {
      cacheKeyFn: windowKey,
      batch,
      maxBatchSize: WINDOWS_PER_READ,
    }));
  }

  get purchasedBy(): SalesLoaders["purchasedBy"] {
    const { db, batch, share } = this;
    // Two aggregations side by side: the books' arrays and their extra_sales pages.
    return (this.purchasedByLoader ??= new DataLoader((questions) => share.use(2, () => retrievePurchasedBy(db, questions)), {
      cacheKeyFn: ({ bookId, customerId }) => purchaseKey(bookId, customerId),
      batch,
      maxBatchSize: KEYS_PER_READ,
    }));
  }

  get alsoBoughtSample(): SalesLoaders["alsoBoughtSample"] {
    const { db, batch, share } = this;
    return (this.alsoBoughtSampleLoader ??= new DataLoader((ids) => share.use(1, () => retrieveAlsoBoughtSamples(db, ids)), {
      cacheKeyFn: bookIdKey,
      batch,
      maxBatchSize: KEYS_PER_READ,
    }));
  }
}

/** The books with these ids in their order, null for each that does not exist, as `retrieve` reads them. */
async function loadBooks<T extends BookWithoutBuyers>(
  ids: readonly BookId[],
  retrieve: (ids: readonly BookId[]) => Promise<T[]>,
): Promise<(T | null)[]> {
  const found = new Map((await retrieve(ids)).map((book) => [bookIdKey(book._id), book]));
  return ids.map((id) => found.get(bookIdKey(id)) ?? null);
}

/**
 * One aggregation for every extra-sales window asked for in this tick. Its `$match` names each book with
 * its pages, so the `(book_id, page)` index serves each branch. Its `$project` finds the page's own windows
 * by key in literal tables (`windowTables`), so a page's work does not grow with the windows of the batch
 * (mongod 7.0's `$getField` takes only a constant name, hence `$indexOfArray` over the keys), and computes
 * each window's `$slice` only: a deep window ships the entries it returns rather than the whole page.
 */
async function loadExtraSalesWindows(db: Db, windows: readonly ExtraSalesWindow[]): Promise<PageSlice[][]> {
  const branches = windows.map((window) => ({ book_id: window.bookId, page: "page" in window ? window.page : { $gte: window.fromPage } }));
  const tables = windowTables(windows);
  const documents = await extraSalesCollection(db)
    .aggregate<{ page: number; length: number; slices: { w: number; customers: string[] }[] }>([
      { $match: { $or: branches } },
      { $sort: { page: 1 } },
      {
        $project: {
          _id: 0,
          page: 1,
          length: { $size: "$customers_purchased_extra" },
          slices: { $concatArrays: [pageWindowSlices(tables), tailWindowSlices(tables)] },
        },
      },
    ])
    .toArray();
  const answers = windows.map((): PageSlice[] => []);
  for (const { page, length, slices } of documents) {
    for (const { w, customers } of slices) {
      const window = windows[w]!;
      const offset = "page" in window ? window.skip : length - customers.length;
      answers[w]!.push({ page, length, offset, customers });
    }
  }
  return answers;
}

interface PageWindowSpec {
  w: number;
  skip: number;
  limit: number;
}

interface TailWindowSpec {
  w: number;
  fromPage: number;
  last: number;
}

/**
 * The batch's windows grouped by what a page finds them by: a window of one page by `[book_id, page]`, a
 * tail window by `book_id` (it covers every page from `fromPage` on). Each table of groups ends with an
 * empty group, which `$arrayElemAt` picks for the `-1` of a key not found. Ids sit inside `$literal`, so
 * a string id starting with "$" stays a value.
 */
function windowTables(windows: readonly ExtraSalesWindow[]) {
  const pages = new Map<string, { key: [BookId, number]; specs: PageWindowSpec[] }>();
  const tails = new Map<string, { key: BookId; specs: TailWindowSpec[] }>();
  windows.forEach((window, w) => {
    if ("page" in window) {
      const key = `${bookIdKey(window.bookId)}#${window.page}`;
      const group = pages.get(key) ?? pages.set(key, { key: [window.bookId, window.page], specs: [] }).get(key)!;
      group.specs.push({ w, skip: window.skip, limit: window.limit });
    } else {
      const key = bookIdKey(window.bookId);
      const group = tails.get(key) ?? tails.set(key, { key: window.bookId, specs: [] }).get(key)!;
      // A tail of 0 is an empty slice: 0, not -0 (a double on the wire).
      group.specs.push({ w, fromPage: window.fromPage, last: window.tail === 0 ? 0 : -window.tail });
    }
  });
  const table = <K, S>(groups: Iterable<{ key: K; specs: S[] }>) => {
    const list = [...groups];
    return { keys: { $literal: list.map(({ key }) => key) }, groups: { $literal: [...list.map(({ specs }) => specs), []] } };
  };
  return { pages: table(pages.values()), tails: table(tails.values()) };
}

type WindowTables = ReturnType<typeof windowTables>;

/** The slices of this page's own single-page windows. */
function pageWindowSlices({ pages }: WindowTables): Document {
  const group = { $arrayElemAt: [pages.groups, { $indexOfArray: [pages.keys, ["$book_id", "$page"]] }] };
  return {
    $map: { input: group, as: "s", in: { w: "$$s.w", customers: { $slice: ["$customers_purchased_extra", "$$s.skip", "$$s.limit"] } } },
  };
}

/** The slices of this book's tail windows that reach this page. */
function tailWindowSlices({ tails }: WindowTables): Document {
  const group = { $arrayElemAt: [tails.groups, { $indexOfArray: [tails.keys, "$book_id"] }] };
  const reaching = { $filter: { input: group, as: "s", cond: { $gte: ["$page", "$$s.fromPage"] } } };
  return { $map: { input: reaching, as: "s", in: { w: "$$s.w", customers: { $slice: ["$customers_purchased_extra", "$$s.last"] } } } };
}

/** The books with these ids that exist, in the order given, read through the batching loader. */
export async function existingBooks(loaders: SalesLoaders, ids: readonly BookId[]): Promise<BookDocument[]> {
  const books = await Promise.all(ids.map((id) => loaders.book.load(id)));
  return books.filter((book) => book !== null);
}
