import type { Document } from "mongodb";
import type { RequiredIndex } from "../../db/indexes";
import type { BookId, EXTRA_SALES, SALES } from "../../sales/documents";

export type ViolationKind =
  | "purchase-count"
  | "purchase-count-ahead"
  | "page-count"
  | "page-over-size"
  | "page-not-full"
  | "page-gap"
  | "has-extras"
  | "embedded-over-threshold"
  | "orphan-page"
  | "not-migrated"
  | "legacy-overflow"
  | "duplicate-pages"
  | "missing-index";

export type Repair = GuardedUpdate | PageRelayout | IndexCreation;

/**
 * A guarded update that repairs a derived field: its filter holds every value the check read, so
 * it applies only if nothing changed since, and a purchase recorded meanwhile is never overwritten.
 */
export interface GuardedUpdate {
  collection: typeof SALES | typeof EXTRA_SALES;
  filter: Document;
  set: Document;
}

/** Rewrites a book's duplicated pages (see `relayOutPages`); applied only while the unique page index is missing. */
export interface PageRelayout {
  relayout: BookId;
  pageSize: number;
}

/** Creates a missing index; fails (and is reported "changed") while duplicates it forbids remain. */
export interface IndexCreation {
  index: RequiredIndex;
}

export interface Violation {
  kind: ViolationKind;
  /** "error" for what says data was lost, which no repair may paper over; every other violation is a warning. */
  level?: "error";
  /** The book at fault; absent for what concerns the whole database (a missing index). */
  bookId?: string;
  message: string;
  /** The numbers behind the message, for machines. */
  numbers: Record<string, number | string | boolean | null>;
  /** Present when `--fix` may repair it: counts, flags, missing indexes, and duplicated pages (rewritten, every purchase kept). */
  repair?: Repair;
}

/** A book as the checks see it: the pattern's fields and the embedded array's length, without the array. */
export interface BookSummary {
  _id: BookId;
  embedded: number | null;
  has_extras?: unknown;
  purchase_count?: unknown;
  extra_page_size?: unknown;
}

/** An `extra_sales` page without its entries. */
export interface PageSummary {
  book_id: BookId;
  page?: unknown;
  count?: unknown;
  entries: number;
}
