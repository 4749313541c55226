import type { Db } from "mongodb";
import { PageRepairInProgressError } from "../db/errors";
import { createIndexes, findMissingIndexes, type RequiredIndex } from "../db/indexes";
import { EXTRA_SALES, PURCHASE_REQUESTS, RECONCILE_JOURNAL, SALES } from "./documents";

/**
 * The unique index that lets exactly one of two requests racing to open the same page succeed. The
 * upsert that opens a page names it as its hint, so without it the upsert fails instead of inserting a duplicate.
 */
export const UNIQUE_PAGE_INDEX = "book_id_1_page_1";
/** Its key pattern, for the commands whose `hint` takes only a pattern (findAndModify's, in the driver's types). */
export const UNIQUE_PAGE_KEY: Record<string, 1 | -1> = { book_id: 1, page: 1 };

/** The largest books first, ties by id: the order of salesStats' list and of the index that serves it. */
export const LARGEST_FIRST = { purchase_count: -1, _id: 1 } as const;

/** An author's books, in id order: the author filter's index (see `hintOf` in catalog.ts). */
export const AUTHOR_INDEX = "author_1__id_1";
/** Every book under each word and prefix of its title and author, in id order: the search's index (see `search-words.ts`). */
export const SEARCH_INDEX = "search_words_1__id_1";
/** The same, each term's books in title order: a search browsed by TITLE (see `SEARCH_ORDER_INDEX` in catalog.ts). */
export const SEARCH_TITLE_INDEX = "search_words_1_title_1__id_1";
/** The same, each term's books in year order: a search browsed by YEAR. */
export const SEARCH_YEAR_INDEX = "search_words_1_year_1__id_1";

/**
 * The indexes the pattern relies on.
 * `(book_id, page)` is unique so that two requests racing to open the same page cannot both succeed,
 * and it serves every read of extra sales, which always names a book and its pages.
 * `has_extras` is indexed so that counting outliers (every metrics scrape, salesStats) reads the few
 * outliers, not the catalog; the flag changes once per book, so the index adds nothing to the cost of a purchase.
 * `(purchase_count desc, _id)` serves salesStats' largest books, which would otherwise sort the whole
 * catalog; every purchase moves its book's key in it (one key removed, one inserted, in the same
 * write), which BENCHMARKS.md measures.
 * The two multikey indexes answer the customer's side (purchase history, "did they buy it?", "also
 * bought") by customer id, each key followed by the book's id so that a customer's books come in book
 * id order and one book's check is a point lookup. They hold one key per stored purchase, and each
 * purchase adds one key to one of them: the cost every write pays for these reads.
 * The catalog's browse (catalog.ts) has one index per order, ties by id: `(title, _id)`, `(year, _id)` and
 * the largest-books index for PURCHASE_COUNT; `(author, _id)` for an author's books; and the multikey
 * `(search_words, _id)`, `(search_words, title, _id)` and `(search_words, year, _id)`, one key per distinct
 * word and prefix of a book's title and author, for the search in each order but PURCHASE_COUNT (whose key
 * every purchase changes). Only addBook, seed and migrate write those fields, so purchases pay nothing for them.
 * `purchase_requests` expires each claim at its own `expires_at` (expireAfterSeconds 0), so a changed
 * PURCHASE_ID_LIFETIME_HOURS applies to new claims without ever changing the index (which would need collMod).
 */
export function salesIndexes(): RequiredIndex[] {
  return [
    { collection: EXTRA_SALES, name: UNIQUE_PAGE_INDEX, key: UNIQUE_PAGE_KEY, unique: true },
    { collection: SALES, name: "has_extras_1", key: { has_extras: 1 } },
    { collection: SALES, name: "purchase_count_-1__id_1", key: LARGEST_FIRST },
    { collection: SALES, name: "title_1__id_1", key: { title: 1, _id: 1 } },
    { collection: SALES, name: "year_1__id_1", key: { year: 1, _id: 1 } },
    { collection: SALES, name: AUTHOR_INDEX, key: { author: 1, _id: 1 } },
    { collection: SALES, name: SEARCH_INDEX, key: { search_words: 1, _id: 1 } },
    { collection: SALES, name: SEARCH_TITLE_INDEX, key: { search_words: 1, title: 1, _id: 1 } },
    { collection: SALES, name: SEARCH_YEAR_INDEX, key: { search_words: 1, year: 1, _id: 1 } },
    { collection: SALES, name: "customers_purchased_1__id_1", key: { customers_purchased: 1, _id: 1 } },
    { collection: EXTRA_SALES, name: "customers_purchased_extra_1_book_id_1", key: { customers_purchased_extra: 1, book_id: 1 } },
    { collection: PURCHASE_REQUESTS, name: "expires_at_1", key: { expires_at: 1 }, expireAfterSeconds: 0 },
  ];
}

/** The sales indexes missing from the database; writes nothing. */
export function findMissingSalesIndexes(db: Db): Promise<RequiredIndex[]> {
  return findMissingIndexes(db, salesIndexes());
}

/**
 * Creates the sales indexes that are missing, returning them (none when all were there). Safe to run at
 * any time: when all are in place it only lists them. The unique page index is left to reconcile while a
 * page repair is unfinished: every other missing index is created, then PageRepairInProgressError says why that one is not.
 */
export async function ensureSalesIndexes(db: Db): Promise<RequiredIndex[]> {
  const missing = await findMissingSalesIndexes(db);
  const heldBack = missing.some(({ name }) => name === UNIQUE_PAGE_INDEX) && (await pageRepairUnfinished(db));
  const created = await createIndexes(db, heldBack ? missing.filter(({ name }) => name !== UNIQUE_PAGE_INDEX) : missing);
  if (heldBack) throw new PageRepairInProgressError(`${EXTRA_SALES}.${UNIQUE_PAGE_INDEX}`);
  return created;
}

/** True while reconcile's journal holds a page rewrite that was cut off (see `relayOutPages`). */
async function pageRepairUnfinished(db: Db): Promise<boolean> {
  return (await db.collection(RECONCILE_JOURNAL).findOne({}, { projection: { _id: 1 } })) !== null;
}
