import type { ClientSession, Collection, Db } from "mongodb";
import { isDuplicateKeyError, isMissingHintedIndexError, MissingIndexError } from "../db/errors";
import { foundBook, WITHOUT_BUYERS } from "./books";
import { extraSalesCollection, salesCollection, type BookId, type BookWithoutBuyers, type ExtraSalesDocument } from "./documents";
import { UNIQUE_PAGE_INDEX, UNIQUE_PAGE_KEY } from "./indexes";
import type { KnownOutlier, KnownOutliersView } from "./known-outliers";

// An outlier's buyers past the threshold go into pages of at most `extra_page_size`: MongoDB's bucket pattern
// applied to the outlier pattern's extra sales, so that no document grows without end (glossary: Page).

/** One purchase of an outlier on its way to `extra_sales`. */
export interface OutlierPurchase {
  bookId: BookId;
  customerId: string;
  /** What the purchase knew of the book when it set out; the process's known outliers may know a later page by the time it is written. */
  outlier: KnownOutlier;
}

/** What one write of extra sales did: the book after it, and how many purchases it carried. */
export interface ExtraSalesWrite {
  book: BookWithoutBuyers;
  purchases: number;
}

/**
 * Steps 3 and 4 of `recordPurchase` for purchases of one outlier, in arrival order: appended to the
 * open page in one write (more only where they cross into a new page), then counted on the book in one.
 *
 * The answer's count includes these purchases and every one stored before them: the book's count after
 * this write's increment, or where the last of them landed when that is further on. Another process's
 * purchase appended just before them may not be counted yet (its increment still on its way), but it
 * holds an earlier place on the pages, which the answer counts from.
 */
export async function recordExtraSales(
  db: Db,
  purchases: readonly OutlierPurchase[],
  knownOutliers?: KnownOutliersView,
): Promise<ExtraSalesWrite> {
  const { bookId, outlier: knownWhenSent } = purchases[0]!;
  const outlier = knownOutliers?.get(bookId) ?? knownWhenSent;
  const customerIds = purchases.map((purchase) => purchase.customerId);
  const last = await appendToExtraSales(db, bookId, customerIds, outlier, knownOutliers);
  knownOutliers?.remember(bookId, outlier, last.page);
  const book = await countExtraSales(db, purchases, undefined);
  const storedUpToLast = outlier.embedded + last.page * outlier.pageSize + last.count;
  return { book: { ...book, purchase_count: Math.max(book.purchase_count, storedUpToLast) }, purchases: purchases.length };
}

/**
 * Steps 3 and 4 for purchases of one outlier inside `session`'s transaction, in order: appended from
 * its open page on (see `appendInTransaction`), then counted in one increment. Returns the last page
 * written too, for the caller to remember once the transaction has committed.
 */
export async function recordExtraSalesInTransaction(
  db: Db,
  purchases: readonly OutlierPurchase[],
  session: ClientSession,
): Promise<ExtraSalesWrite & { page: number }> {
  const { bookId, outlier } = purchases[0]!;
  const page = await appendInTransaction(
    db,
    bookId,
    purchases.map((purchase) => purchase.customerId),
    outlier,
    session,
  );
  return { book: await countExtraSales(db, purchases, session), purchases: purchases.length, page };
}

/** Where the last of an append's purchases landed: its page, and how many that page held after it. */
interface LastPlace {
  page: number;
  count: number;
}

/**
 * Appends `customerIds`, in order, from a page no later than the open one, moving forward past full
 * pages; returns where the last of them landed. Each page takes what it has room for and the rest goes to
 * the next, so no page ever holds more than `pageSize`. Racers share what they learn through
 * `knownOutliers`, so that a crowd arriving at a full page does not walk it one page at a time.
 */
async function appendToExtraSales(
  db: Db,
  bookId: BookId,
  customerIds: readonly string[],
  outlier: KnownOutlier,
  knownOutliers: KnownOutliersView | undefined,
): Promise<LastPlace> {
  const { pageSize, openPageAtLeast } = outlier;
  const extraSales = extraSalesCollection(db);
  let pending = customerIds;
  for (let page = openPageAtLeast; ; page = Math.max(page + 1, knownOutliers?.get(bookId)?.openPageAtLeast ?? 0)) {
    // Whatever stays pending after a page took its share found that page full.
    const appended = await appendWhatFits(extraSales, bookId, page, pending.slice(0, pageSize), pageSize);
    pending = pending.slice(appended.taken);
    if (pending.length === 0) return { page, count: appended.count };
    knownOutliers?.remember(bookId, outlier, page + 1);
  }
}

/**
 * Appends the first of `customerIds` (at most a page of them) that page `page` has room for; returns how
 * many, and how many the page held after them. Every write is guarded by the room it needs, so a page never overfills, whoever races for it.
 * A duplicate key on the upsert means the page exists: either it lacks room, or a racer created it a
 * moment ago, which the plain guarded update tells apart. A single purchase that finds no room moves
 * on at once (two round trips, as ever); a shared write reads the page's count and takes the room left.
 * The upsert names the unique page index as its hint: without that index (a database restored without
 * it, a dropped collection) racing upserts could open the same page twice, so mongod refuses the upsert instead.
 */
async function appendWhatFits(
  extraSales: Collection<ExtraSalesDocument>,
  bookId: BookId,
  page: number,
  customerIds: readonly string[],
  pageSize: number,
): Promise<{ taken: number; count: number }> {
  const withRoomFor = (purchases: number) => ({ book_id: bookId, page, count: { $lte: pageSize - purchases } });
  // The page's count after the append says where its last purchase landed.
  const after = { returnDocument: "after", projection: { _id: 0, count: 1 } } as const;
  try {
    const opened = await extraSales.findOneAndUpdate(withRoomFor(customerIds.length), appendOf(customerIds), {
      ...after,
      upsert: true,
      hint: UNIQUE_PAGE_KEY,
    });
    return { taken: customerIds.length, count: opened?.count ?? customerIds.length };
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw refusedWithoutPageIndex(error);
  }
  for (let fitting = customerIds.length; fitting > 0; fitting = await roomOnPage(extraSales, bookId, page, pageSize, fitting)) {
    const appended = await extraSales.findOneAndUpdate(withRoomFor(fitting), appendOf(customerIds.slice(0, fitting)), after);
    if (appended !== null) return { taken: fitting, count: appended.count };
    // One purchase found no room: the page is full, and no read can say more.
    if (fitting === 1) break;
  }
  return { taken: 0, count: pageSize };
}

/** How many of `wanted` purchases page `page` has room for now. */
async function roomOnPage(
  extraSales: Collection<ExtraSalesDocument>,
  bookId: BookId,
  page: number,
  pageSize: number,
  wanted: number,
): Promise<number> {
  const stored = await extraSales.findOne({ book_id: bookId, page }, { projection: { _id: 0, count: 1 }, hint: UNIQUE_PAGE_INDEX });
  return Math.max(0, Math.min(wanted - 1, pageSize - (stored?.count ?? pageSize)));
}

/**
 * `appendToExtraSales` for a transaction, where a duplicate key aborts the whole transaction and so
 * cannot be caught and stepped past. The last page from `openPageAtLeast` on is read in the
 * transaction's snapshot and takes what it has room for; the rest fills new pages after it.
 * A racer that appends to the same page or inserts the same next page makes this transaction fail
 * (a write conflict, which the driver retries, or a duplicate key, which the caller retries): it is
 * recorded again from the start, never twice. The read names the unique page index as its hint, so that
 * without the index (which is what makes two inserts of one page collide) the purchase is refused.
 * Returns the last page appended to.
 */
async function appendInTransaction(
  db: Db,
  bookId: BookId,
  customerIds: readonly string[],
  { pageSize, openPageAtLeast }: KnownOutlier,
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
  let pending = customerIds;
  if (last !== null && last.count < pageSize) {
    const fitting = pending.slice(0, pageSize - last.count);
    // The guard still holds the page to its size; in the snapshot that saw the room it always matches.
    const openPage = { book_id: bookId, page: last.page, count: { $lte: pageSize - fitting.length } };
    const { matchedCount } = await extraSales.updateOne(openPage, appendOf(fitting), { session });
    if (matchedCount === 1) pending = pending.slice(fitting.length);
  }
  let page = last === null ? openPageAtLeast - 1 : last.page;
  for (; pending.length > 0; pending = pending.slice(pageSize)) {
    page += 1;
    const entries = pending.slice(0, pageSize);
    await extraSales.insertOne({ book_id: bookId, page, customers_purchased_extra: [...entries], count: entries.length }, { session });
  }
  return page;
}

/** A page read or write refused because its hinted unique page index is missing becomes the service's refusal; any other error stays as it is. */
function refusedWithoutPageIndex(error: unknown): unknown {
  return isMissingHintedIndexError(error)
    ? new MissingIndexError("A purchase into extra_sales", UNIQUE_PAGE_INDEX, { cause: error })
    : error;
}

/** Customers appended to a page in order, with the count its guard filters on. */
function appendOf(customerIds: readonly string[]) {
  return { $push: { customers_purchased_extra: { $each: [...customerIds] } }, $inc: { count: customerIds.length } };
}

/** Step 4 for purchases of one outlier in one increment. */
async function countExtraSales(
  db: Db,
  purchases: readonly OutlierPurchase[],
  session: ClientSession | undefined,
): Promise<BookWithoutBuyers> {
  const { bookId } = purchases[0]!;
  const book = await salesCollection(db).findOneAndUpdate(
    { _id: bookId },
    { $inc: { purchase_count: purchases.length } },
    { returnDocument: "after", projection: WITHOUT_BUYERS, session },
  );
  // The book was there a moment ago and books are never deleted by this API.
  return foundBook(book, bookId);
}
