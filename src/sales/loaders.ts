import DataLoader from "dataloader";
import type { Db, Document } from "mongodb";
import { extraSalesCollection, type BookId, type BookDocument } from "./documents";
import { bookIdKey } from "./book-ids";
import { retrieveBooksByIds } from "./books";
import type { ExtraSalesWindow, PageSlice } from "./book-buyers";
import { createPoolShare, type PoolShare } from "./pool-share";
import { purchaseKey, retrievePurchasedBy, type PurchaseQuestion } from "./purchase-history";
import { retrieveAlsoBoughtSamples } from "./recommendations";

/** Per-request batching and caching: every read of one kind within a tick becomes one query. */
export interface SalesLoaders {
  readonly book: DataLoader<BookId, BookDocument | null, string>;
  readonly extraSalesWindow: DataLoader<ExtraSalesWindow, PageSlice[], string>;
  readonly purchasedBy: DataLoader<PurchaseQuestion, boolean, string>;
  /** The buyers `alsoBought` counts over, per book: one query for every book of a request. */
  readonly alsoBoughtSample: DataLoader<BookId, string[], string>;
}

/**
 * Keys one batched read names at most: as many books as a window of them. A batch of 1,000 books was one
 * command holding its connection, and the database, for as long as all of them take; in reads of 100, the
 * request's reads take turns with other requests' at the database (each in the request's share of the pool).
 */
export const KEYS_PER_READ = 100;

/**
 * Windows of buyers one aggregation reads at most. Its `$project` computes one field per window on every
 * page it matches, so its work grows with the square of its windows: 6,000 windows in one aggregation
 * held a connection for seconds. In batches of 50, it grows with the windows, each batch a command of the
 * request's share.
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
  let book: SalesLoaders["book"] | undefined;
  let extraSalesWindow: SalesLoaders["extraSalesWindow"] | undefined;
  let purchasedBy: SalesLoaders["purchasedBy"] | undefined;
  let alsoBoughtSample: SalesLoaders["alsoBoughtSample"] | undefined;
  return {
    get book() {
      return (book ??= new DataLoader((ids) => share.use(1, () => loadBooks(db, ids)), {
        cacheKeyFn: bookIdKey,
        batch,
        maxBatchSize: KEYS_PER_READ,
      }));
    },
    get extraSalesWindow() {
      return (extraSalesWindow ??= new DataLoader((windows) => share.use(1, () => loadExtraSalesWindows(db, windows)), {
        cacheKeyFn: windowKey,
        batch,
        maxBatchSize: WINDOWS_PER_READ,
      }));
    },
    get purchasedBy() {
      // Two aggregations side by side: the books' arrays and their extra_sales pages.
      return (purchasedBy ??= new DataLoader((questions) => share.use(2, () => retrievePurchasedBy(db, questions)), {
        cacheKeyFn: ({ bookId, customerId }) => purchaseKey(bookId, customerId),
        batch,
        maxBatchSize: KEYS_PER_READ,
      }));
    },
    get alsoBoughtSample() {
      return (alsoBoughtSample ??= new DataLoader((ids) => share.use(1, () => retrieveAlsoBoughtSamples(db, ids)), {
        cacheKeyFn: bookIdKey,
        batch,
        maxBatchSize: KEYS_PER_READ,
      }));
    },
  };
}

async function loadBooks(db: Db, ids: readonly BookId[]): Promise<(BookDocument | null)[]> {
  const found = new Map((await retrieveBooksByIds(db, ids)).map((book) => [bookIdKey(book._id), book]));
  return ids.map((id) => found.get(bookIdKey(id)) ?? null);
}

/**
 * One aggregation for every extra-sales window asked for in this tick. Its `$match` names each book with
 * its pages, so the `(book_id, page)` index serves each branch; its `$project` computes one field per
 * window (`w0`, `w1`, ...) holding only that window's `$slice` of the page, and only on the pages it
 * covers, so a deep window ships the entries it returns rather than the whole page.
 */
async function loadExtraSalesWindows(db: Db, windows: readonly ExtraSalesWindow[]): Promise<PageSlice[][]> {
  const branches = windows.map((window) => ({ book_id: window.bookId, page: "page" in window ? window.page : { $gte: window.fromPage } }));
  const fields = Object.fromEntries(windows.map((window, index) => [`w${index}`, windowSlice(window)]));
  const documents = await extraSalesCollection(db)
    .aggregate<{ page: number; length: number } & Record<string, unknown>>([
      { $match: { $or: branches } },
      { $sort: { page: 1 } },
      { $project: { _id: 0, page: 1, length: { $size: "$customers_purchased_extra" }, ...fields } },
    ])
    .toArray();
  return windows.map((window, index) =>
    documents.flatMap((document) => {
      const customers = document[`w${index}`] as string[] | undefined;
      if (customers === undefined) return [];
      const offset = "page" in window ? window.skip : document.length - customers.length;
      return [{ page: document.page, length: document.length, offset, customers }];
    }),
  );
}

/** The window's entries on a page it covers; `$$REMOVE` (no field at all) on every other page. */
function windowSlice(window: ExtraSalesWindow): Document {
  // $literal: a string book id starting with "$" would otherwise be read as a field path.
  const sameBook = { $eq: ["$book_id", { $literal: window.bookId }] };
  const covered =
    "page" in window ? { $and: [sameBook, { $eq: ["$page", window.page] }] } : { $and: [sameBook, { $gte: ["$page", window.fromPage] }] };
  const slice =
    "page" in window
      ? ["$customers_purchased_extra", window.skip, window.limit]
      : ["$customers_purchased_extra", window.tail === 0 ? 0 : -window.tail];
  return { $cond: [covered, { $slice: slice }, "$$REMOVE"] };
}

/** The books with these ids that exist, in the order given, read through the batching loader. */
export async function existingBooks(loaders: SalesLoaders, ids: readonly BookId[]): Promise<BookDocument[]> {
  const books = await Promise.all(ids.map((id) => loaders.book.load(id)));
  return books.filter((book) => book !== null);
}
