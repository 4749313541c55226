import type { Collection, Db, Document, ObjectId } from "mongodb";
import { StoredDataError } from "./errors";

/** A book's `_id`: the manual's examples use integers; strings and ObjectIds are as welcome. */
export type BookId = number | string | ObjectId;

/** A book in the `sales` collection, with its first purchases embedded. */
export interface BookDocument {
  /** The book's id, of whichever type it was created with. */
  _id: BookId;
  /** The book's title. */
  title: string;
  /** The book's author. */
  author: string;
  /** Year of publication; absent when unknown. */
  year?: number | null;
  /** The distinct normalized words of title and author (see `searchWordsOf`), for the search index; absent on books written before it, until `npm run migrate`. */
  search_words?: string[];
  /** Customer ids of the book's first purchases, in purchase order; frozen once `has_extras` is set. */
  customers_purchased: string[];
  /** True once purchases go on into `extra_sales`; never unset. */
  has_extras: boolean;
  /** Purchases in all, embedded plus extra; incremented after each append to extra_sales, so it may lag, never lead. */
  purchase_count: number;
  /** Entries per `extra_sales` page for this book, fixed when the book is created so that configuration changes never renumber its pages. */
  extra_page_size: number;
}

/** A book as a write sends it back (see `WITHOUT_BUYERS`): its embedded buyers are left for the reads that show them. */
export type BookWithoutBuyers = Omit<BookDocument, "customers_purchased" | "search_words">;

/** One page of a book's extra sales in the `extra_sales` collection. */
export interface ExtraSalesDocument {
  /** The `_id` of the book in `sales` these purchases belong to. */
  book_id: BookId;
  /** Page number from 0; page n is only created once page n-1 is full. */
  page: number;
  /** Customer ids in purchase order, at most the book's `extra_page_size` of them. */
  customers_purchased_extra: string[];
  /** Length of `customers_purchased_extra`, kept beside it so the append guard can filter on it. */
  count: number;
}

/** Where a purchase was stored; the names match the GraphQL enum `PurchaseStorage`. */
export type PurchaseStorage = "EMBEDDED" | "EXTRA_SALES";

/** A claim on one purchaseId of one book, in `purchase_requests`: who owns it and, once recorded, the outcome. */
export interface ClaimDocument {
  /** Keys are scoped by book: the same purchaseId for another book is another purchase. */
  _id: { book_id: BookId; purchase_id: string };
  /** The customer the purchaseId was first used for; a retry naming another customer is a conflict. */
  customer_id: string;
  /** A random token of the request that owns the claim; a takeover replaces it. */
  owner: string;
  /** When the owner claimed it; a claim without outcome this long past its lease may be taken over. */
  claimed_at: Date;
  /** When the key may be forgotten: the TTL index (expireAfterSeconds 0) deletes the claim after this date. */
  expires_at: Date;
  /** Where the purchase was stored, set once it is: what every retry answers. */
  stored_in?: PurchaseStorage;
}

/**
 * The page size a book's extra sales are laid out with. Books written before this project's fields
 * existed have none, and guessing one would misplace their purchases, so they are refused.
 */
export function pageSizeOf(book: Pick<BookDocument, "_id" | "extra_page_size">): number {
  if (hasValidPageSize(book)) return book.extra_page_size;
  throw new StoredDataError(
    `Book ${String(book._id)} has no valid extra_page_size (found ${String(book.extra_page_size)}): ` +
      "it was written without this project's fields and must be migrated before purchases can go on into extra_sales.",
  );
}

/** A positive whole number, as this project writes it; anything else (or nothing) marks a book it did not write. */
export function hasValidPageSize(book: { extra_page_size?: unknown }): boolean {
  return Number.isInteger(book.extra_page_size) && (book.extra_page_size as number) > 0;
}

export const SALES = "sales";
export const EXTRA_SALES = "extra_sales";
/** The purchaseId claims (see `claims.ts`). */
export const PURCHASE_REQUESTS = "purchase_requests";
/** Page repairs in progress (see `page-relayout.ts`). */
export const RECONCILE_JOURNAL = "reconcile_journal";

// db.collection() builds a new handle, resolving its options, on every call: every command of every request
// would pay for it. A handle holds no state of its own, so one per database serves them all.
const salesHandles = new WeakMap<Db, Collection<BookDocument>>();
const extraSalesHandles = new WeakMap<Db, Collection<ExtraSalesDocument>>();
const claimHandles = new WeakMap<Db, Collection<ClaimDocument>>();

export function salesCollection(db: Db): Collection<BookDocument> {
  return handleOf(salesHandles, db, SALES);
}

export function extraSalesCollection(db: Db): Collection<ExtraSalesDocument> {
  return handleOf(extraSalesHandles, db, EXTRA_SALES);
}

export function claimsCollection(db: Db): Collection<ClaimDocument> {
  return handleOf(claimHandles, db, PURCHASE_REQUESTS);
}

function handleOf<T extends Document>(handles: WeakMap<Db, Collection<T>>, db: Db, name: string): Collection<T> {
  let handle = handles.get(db);
  if (handle === undefined) {
    handle = db.collection<T>(name);
    handles.set(db, handle);
  }
  return handle;
}
