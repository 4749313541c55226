import type { ClientSession, Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { isDuplicateKeyError, isMissingHintedIndexError, MissingIndexError } from "../db/errors";
import { UNIQUE_PAGE_INDEX } from "../db/indexes";
import { extraSalesCollection, pageSizeOf, salesCollection, type BookId, type ExtraSalesDocument, type SalesDocument } from "./documents";
import { formatBookId } from "./book-ids";
import { BookNotFoundError } from "./errors";
import { embeddedBuyersProjection, type BookProjection } from "./books";
import type { FlaggedBook, FlaggedBooks } from "./flagged-books";

/** Where a purchase landed; the names match the GraphQL enum `PurchaseStorage`. */
export type PurchaseStorage = "EMBEDDED" | "EXTRA_SALES";

export interface RecordedPurchase {
  /** The book as it stands after the purchase, holding only the first `embeddedBuyers` of its embedded buyers. */
  book: SalesDocument;
  storedIn: PurchaseStorage;
}

export interface PurchaseOptions {
  /** Flagged books this process has seen: with it, a known outlier's purchase takes two round trips instead of four. */
  flaggedBooks?: Pick<FlaggedBooks, "get" | "remember">;
  /** How many of the book's embedded buyers the caller's answer shows (see `embeddedBuyersProjection`); none by default. */
  embeddedBuyers?: number;
  /**
   * The session of the transaction every write joins; with one, the next page is opened as a transaction
   * must (see `appendInTransaction`), which is only safe against racers inside a transaction.
   */
  session?: ClientSession;
}

/**
 * Appends one purchase to a book, exactly once, under any number of concurrent callers.
 *
 * Every decision is a guard in an update's filter, never a read followed by a write:
 * 1. push into the embedded array while the book is unflagged and the array has room;
 * 2. otherwise flag the book, so that readers look in `extra_sales` before anything is there;
 * 3. append to the open page, creating the next page only once the open one is full;
 * 4. count the purchase last, so the stored count may lag behind the entries but never lead them.
 * A crash between steps leaves at most a flag or a count to repair, never a purchase readers cannot reach.
 * A book `flaggedBooks` knows is flagged skips steps 1 and 2, which could only miss and repeat the flag.
 * With a `session` in a transaction the four steps commit or vanish together; the caller then hands in
 * a `flaggedBooks` that keeps what it learns until the commit, since an aborted flag was never set.
 */
export async function recordPurchase(
  db: Db,
  bookId: BookId,
  customerId: string,
  settings: Pick<OutlierSettings, "outlierThreshold">,
  { flaggedBooks, embeddedBuyers = 0, session }: PurchaseOptions = {},
): Promise<RecordedPurchase> {
  const projection = embeddedBuyersProjection(embeddedBuyers);
  let flagged = flaggedBooks?.get(bookId);
  if (!flagged) {
    const embedded = await pushIntoEmbeddedArray(db, bookId, customerId, settings.outlierThreshold, projection, session);
    if (embedded) return { book: embedded, storedIn: "EMBEDDED" };
    flagged = openPageOf(await flagAsOutlier(db, bookId, session));
  }
  const page = session
    ? await appendInTransaction(db, bookId, customerId, flagged, session)
    : await appendToExtraSales(db, bookId, customerId, flagged, flaggedBooks);
  flaggedBooks?.remember(bookId, flagged.pageSize, page);
  return { book: await countOverflowPurchase(db, bookId, projection, session), storedIn: "EXTRA_SALES" };
}

async function pushIntoEmbeddedArray(
  db: Db,
  bookId: BookId,
  customerId: string,
  threshold: number,
  projection: BookProjection,
  session: ClientSession | undefined,
): Promise<SalesDocument | null> {
  return salesCollection(db).findOneAndUpdate(
    // Index threshold-1 exists exactly when the array is full, so this matches only while there is room.
    { _id: bookId, has_extras: { $ne: true }, [`customers_purchased.${threshold - 1}`]: { $exists: false } },
    { $push: { customers_purchased: customerId }, $inc: { purchase_count: 1 } },
    { returnDocument: "after", projection, session },
  );
}

type OutlierShape = Pick<SalesDocument, "_id" | "customers_purchased" | "purchase_count" | "extra_page_size">;

async function flagAsOutlier(db: Db, bookId: BookId, session: ClientSession | undefined): Promise<OutlierShape> {
  const book = await salesCollection(db).findOneAndUpdate(
    { _id: bookId },
    { $set: { has_extras: true } },
    { projection: { customers_purchased: 1, purchase_count: 1, extra_page_size: 1 }, session },
  );
  if (!book) throw new BookNotFoundError(formatBookId(bookId));
  return book as OutlierShape;
}

/** The page the (possibly lagging) count points to, which is never past the open page. */
function openPageOf(book: OutlierShape): FlaggedBook {
  const pageSize = pageSizeOf(book);
  const overflowCounted = Math.max(0, book.purchase_count - book.customers_purchased.length);
  return { pageSize, openPageAtLeast: Math.floor(overflowCounted / pageSize) };
}

/**
 * Starts at a page no later than the open one and moves forward past full pages; returns the page
 * appended to. A duplicate key means the page exists: either it is full, or a racer created it a
 * moment ago, which the plain guarded update below tells apart. Racers share what they learn
 * through `flaggedBooks`, so that a crowd arriving at a full page does not walk it one page at a time.
 * The upsert names the unique page index as its hint: without that index (a database restored without
 * it, a dropped collection) racing upserts could open the same page twice, so mongod refuses the upsert instead.
 */
async function appendToExtraSales(
  db: Db,
  bookId: BookId,
  customerId: string,
  { pageSize, openPageAtLeast }: FlaggedBook,
  flaggedBooks: PurchaseOptions["flaggedBooks"],
): Promise<number> {
  const extraSales = extraSalesCollection(db);
  const append = appendOf(customerId);

  for (let page = openPageAtLeast; ; page = Math.max(page + 1, flaggedBooks?.get(bookId)?.openPageAtLeast ?? 0)) {
    const openPage = { book_id: bookId, page, count: { $lt: pageSize } };
    try {
      await extraSales.updateOne(openPage, append, { upsert: true, hint: UNIQUE_PAGE_INDEX });
      return page;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw refusedWithoutPageIndex(error);
    }
    const { matchedCount } = await extraSales.updateOne(openPage, append);
    if (matchedCount === 1) return page;
    flaggedBooks?.remember(bookId, pageSize, page + 1);
  }
}

/**
 * `appendToExtraSales` for a transaction, where a duplicate key aborts the whole transaction and so
 * cannot be caught and stepped past. The last page from `openPageAtLeast` on is read in the
 * transaction's snapshot, then appended to while it has room, or else the next page is inserted.
 * A racer that appends to the same page or inserts the same next page makes this transaction fail
 * (a write conflict, which the driver retries, or a duplicate key, which the caller retries): it is
 * recorded again from the start, never twice. The read names the unique page index as its hint, so that
 * without the index (which is what makes two inserts of one page collide) the purchase is refused.
 */
async function appendInTransaction(
  db: Db,
  bookId: BookId,
  customerId: string,
  { pageSize, openPageAtLeast }: FlaggedBook,
  session: ClientSession,
): Promise<number> {
  const extraSales = extraSalesCollection(db);
  const last = await extraSales
    .findOne<Pick<ExtraSalesDocument, "page" | "count">>(
      { book_id: bookId, page: { $gte: openPageAtLeast } },
      { sort: { page: -1 }, projection: { _id: 0, page: 1, count: 1 }, hint: UNIQUE_PAGE_INDEX, session },
    )
    .catch((error: unknown) => {
      throw refusedWithoutPageIndex(error);
    });
  if (last !== null && last.count < pageSize) {
    // The guard still holds the page to its size; in the snapshot that saw room it always matches.
    const openPage = { book_id: bookId, page: last.page, count: { $lt: pageSize } };
    const { matchedCount } = await extraSales.updateOne(openPage, appendOf(customerId), { session });
    if (matchedCount === 1) return last.page;
  }
  const page = last === null ? openPageAtLeast : last.page + 1;
  await extraSales.insertOne({ book_id: bookId, page, customers_purchased_extra: [customerId], count: 1 }, { session });
  return page;
}

/** A page read or write refused because its hinted unique page index is missing becomes the service's refusal; any other error stays as it is. */
function refusedWithoutPageIndex(error: unknown): unknown {
  return isMissingHintedIndexError(error)
    ? new MissingIndexError("A purchase into extra_sales", UNIQUE_PAGE_INDEX, { cause: error })
    : error;
}

/** One customer appended to a page, with the count its guard filters on. */
function appendOf(customerId: string) {
  return { $push: { customers_purchased_extra: customerId }, $inc: { count: 1 } };
}

async function countOverflowPurchase(
  db: Db,
  bookId: BookId,
  projection: BookProjection,
  session: ClientSession | undefined,
): Promise<SalesDocument> {
  const book = await salesCollection(db).findOneAndUpdate(
    { _id: bookId },
    { $inc: { purchase_count: 1 } },
    { returnDocument: "after", projection, session },
  );
  // The book was there a moment ago and books are never deleted by this API.
  if (!book) throw new BookNotFoundError(formatBookId(bookId));
  return book;
}
