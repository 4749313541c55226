import type { ClientSession, Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { foundBook, WITHOUT_BUYERS } from "./books";
import { pageSizeOf, salesCollection, type BookDocument, type BookId, type BookWithoutBuyers, type PurchaseStorage } from "./documents";
import { recordExtraSales, recordExtraSalesInTransaction, type ExtraSalesWrite } from "./extra-sales";
import type { KnownOutlier, KnownOutliersView } from "./known-outliers";
import type { SharedWrites } from "./shared-writes";

/** One purchase a client asks for; `purchaseId`, when given, makes retries of it record nothing new. */
export interface PurchaseRequest {
  bookId: BookId;
  customerId: string;
  /** The client's own id for the order line: a retry with it records nothing new (see `keyed-purchases.ts`). */
  purchaseId?: string;
}

export interface RecordedPurchase {
  /** The book as it stands after the purchase, without its embedded buyers (see `WITHOUT_BUYERS`). */
  book: BookWithoutBuyers;
  storedIn: PurchaseStorage;
  /** How many purchases this request's write carried: 1 alone, more when concurrent purchases of the book shared it; 0 for a replay, which writes nothing. */
  purchasesInWrite: number;
}

export interface PurchaseOutcome extends RecordedPurchase {
  /** True when an earlier request with the same purchaseId recorded the purchase and this one only reports it. */
  replayed: boolean;
}

export interface PurchaseOptions {
  /** Outliers this process has seen: with it, a known outlier's purchase takes two round trips instead of four. */
  knownOutliers?: KnownOutliersView;
  /**
   * The session of the transaction every write joins; with one, the next page is opened as a transaction
   * must (see `appendInTransaction`), which is only safe against racers inside a transaction.
   */
  session?: ClientSession;
  /** Shares steps 3 and 4 with concurrent purchases of the book; without it (or in a transaction) each purchase writes alone. */
  sharedWrites?: SharedWrites | undefined;
}

/**
 * Appends one purchase to a book, exactly once, under any number of concurrent callers.
 *
 * Every decision is a guard in an update's filter, never a read followed by a write:
 * 1. push into the embedded array while the book is unflagged and the array has room;
 * 2. otherwise flag the book, so that readers look in `extra_sales` before anything is there;
 * 3. append to the open page, creating the next page only once the open one is full;
 * 4. count the purchase last, so the stored count may lag behind the entries but never lead them.
 * Steps 3 and 4 are in `extra-sales.ts`. A crash between steps leaves at most a flag or a count to
 * repair, never a purchase readers cannot reach.
 * An outlier that `knownOutliers` remembers skips steps 1 and 2, which could only miss and repeat the flag.
 * With a `session` in a transaction the four steps commit or vanish together; the caller then hands in
 * a `knownOutliers` that keeps what it learns until the commit, since an aborted flag was never set.
 * Outside a transaction, `sharedWrites` may carry steps 3 and 4 of several purchases of the book in one write each.
 */
export async function recordPurchase(
  db: Db,
  bookId: BookId,
  customerId: string,
  settings: Pick<OutlierSettings, "outlierThreshold">,
  { knownOutliers, session, sharedWrites }: PurchaseOptions = {},
): Promise<RecordedPurchase> {
  let outlier = knownOutliers?.get(bookId);
  if (!outlier) {
    const embedded = await pushIntoEmbeddedArray(db, bookId, customerId, settings.outlierThreshold, session);
    if (embedded) return { book: embedded, storedIn: "EMBEDDED", purchasesInWrite: 1 };
    outlier = openPageOf(await flagAsOutlier(db, bookId, session));
  }
  const purchase = { bookId, customerId, outlier };
  if (session) {
    const written = await recordExtraSalesInTransaction(db, [purchase], session);
    knownOutliers?.remember(bookId, outlier, written.page);
    return extraSaleAnswer(written);
  }
  return extraSaleAnswer(sharedWrites ? await sharedWrites.extraSale(purchase) : await recordExtraSales(db, [purchase], knownOutliers));
}

/** One purchase's answer from the write of extra sales that carried it (with `purchases` in all). */
export function extraSaleAnswer({ book, purchases }: ExtraSalesWrite): RecordedPurchase {
  return { book, storedIn: "EXTRA_SALES", purchasesInWrite: purchases };
}

async function pushIntoEmbeddedArray(
  db: Db,
  bookId: BookId,
  customerId: string,
  threshold: number,
  session: ClientSession | undefined,
): Promise<BookWithoutBuyers | null> {
  return salesCollection(db).findOneAndUpdate(
    // Index threshold-1 exists exactly when the array is full, so this matches only while there is room.
    { _id: bookId, has_extras: { $ne: true }, [`customers_purchased.${threshold - 1}`]: { $exists: false } },
    { $push: { customers_purchased: customerId }, $inc: { purchase_count: 1 } },
    { returnDocument: "after", projection: WITHOUT_BUYERS, session },
  );
}

/** A book just flagged, as read back: what its open page is worked out from. */
type FlaggedBook = Pick<BookDocument, "_id" | "customers_purchased" | "purchase_count" | "extra_page_size">;

async function flagAsOutlier(db: Db, bookId: BookId, session: ClientSession | undefined): Promise<FlaggedBook> {
  const book = await salesCollection(db).findOneAndUpdate(
    { _id: bookId },
    { $set: { has_extras: true } },
    { projection: { customers_purchased: 1, purchase_count: 1, extra_page_size: 1 }, session },
  );
  return foundBook(book, bookId) as FlaggedBook;
}

/** The page the (possibly lagging) count points to, which is never past the open page. */
function openPageOf(book: FlaggedBook): KnownOutlier {
  const pageSize = pageSizeOf(book);
  const embedded = book.customers_purchased.length;
  const extraSalesCounted = Math.max(0, book.purchase_count - embedded);
  return { pageSize, embedded, openPageAtLeast: Math.floor(extraSalesCounted / pageSize) };
}
