import { LRUCache } from "lru-cache";
import type { BookId } from "./documents";
import { bookIdKey } from "./book-ids";

/** What an extra sale needs to know of an outlier to go straight to its pages. */
export interface KnownOutlier {
  /** The book's `extra_page_size`, fixed when it was created. */
  pageSize: number;
  /** How many buyers its embedded array holds, fixed once it is flagged: where its extra sales start. */
  embedded: number;
  /** A page number no later than the open page: where the search for room starts. */
  openPageAtLeast: number;
}

/** What never changes of a flagged book: its page size and its embedded buyers. */
export type OutlierShape = Pick<KnownOutlier, "pageSize" | "embedded">;

/** What the write path asks of the known outliers; a transaction hands in one that keeps what it learns until its commit. */
export type KnownOutliersView = Pick<KnownOutliers, "get" | "remember">;

// Outliers are few (about one book in a hundred in the demo catalog); the bound only keeps a pathological catalog from growing the process.
const MAX_REMEMBERED_BOOKS = 100_000;

/**
 * The books this process has seen flagged `has_extras`, so that their purchases skip the embedded
 * push that cannot succeed and the flag that is already set: two round trips instead of four.
 *
 * Safe without asking the database because nothing it remembers can become wrong: the API never
 * unsets a flag or deletes a book, a book's page size is fixed when it is created, and pages fill
 * in order, so a page once open is never behind the open one, and once flagged its embedded array no
 * longer grows. A purchase that finds the remembered
 * page full moves on to the next, as any purchase does. The one thing that breaks it is dropping
 * the catalog under a running API (`npm run seed -- --drop`): restart the API afterwards.
 */
export class KnownOutliers {
  private readonly books = new LRUCache<string, KnownOutlier>({ max: MAX_REMEMBERED_BOOKS });

  get(bookId: BookId): KnownOutlier | undefined {
    return this.books.get(bookIdKey(bookId));
  }

  /** Remembers that `bookId` is flagged, with its shape, and that `page` was open; a later page wins over an earlier one. */
  remember(bookId: BookId, { pageSize, embedded }: OutlierShape, page: number): void {
    const known = this.books.get(bookIdKey(bookId));
    this.books.set(bookIdKey(bookId), { pageSize, embedded, openPageAtLeast: Math.max(page, known?.openPageAtLeast ?? 0) });
  }
}
