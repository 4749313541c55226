// Browsing the catalog: books in one of four orders, filtered and searched, a window at a time from keyset cursors.
import type { Db, Document, Filter } from "mongodb";
import { checkWindowSize, countBooks, embeddedBuyersProjection, MAX_AUTHOR_LENGTH } from "./books";
import { salesCollection, type BookDocument, type BookId } from "./documents";
import { InvalidInputError } from "./errors";
import { idRangesBeyond } from "./id-order";
import { AUTHOR_INDEX, SEARCH_INDEX } from "./indexes";
import { MAX_SEARCH_WORDS, searchTermsOf, type SearchTerms } from "./search-words";

export type CatalogOrderField = "ID" | "TITLE" | "YEAR" | "PURCHASE_COUNT";
export type CatalogDirection = "ASC" | "DESC";

export interface CatalogFilter {
  author?: string | null;
  yearFrom?: number | null;
  yearTo?: number | null;
}

/** What a client asked to browse, checked: a cursor is only valid within the same browse. */
export interface CatalogBrowse {
  field: CatalogOrderField;
  direction: CatalogDirection;
  filter: CatalogFilter;
  search: SearchTerms | null;
}

/** Where a window starts: the order key (absent for ID) and id of the last book before it. */
export interface CatalogPosition {
  key?: string | number | null;
  id: BookId;
}

type KeyField = "title" | "year" | "purchase_count";
type Sign = 1 | -1;

/**
 * Each order's key and how ASC walks it, key and id: every order but PURCHASE_COUNT ascends both; the
 * bestseller index is `{purchase_count: -1, _id: 1}` (salesStats' order), so its DESC ascends ids, and ASC
 * is its exact reverse. Each direction is thus the other one reversed, and served by one index.
 */
const ORDERS: Record<CatalogOrderField, { key: KeyField | null; ascending: { key: Sign; id: Sign } }> = {
  ID: { key: null, ascending: { key: 1, id: 1 } },
  TITLE: { key: "title", ascending: { key: 1, id: 1 } },
  YEAR: { key: "year", ascending: { key: 1, id: 1 } },
  PURCHASE_COUNT: { key: "purchase_count", ascending: { key: 1, id: -1 } },
};

/**
 * totalCount under a filter or a search counts at most this many books, so that it never reads more
 * than that many index keys: a count of MAX_COUNTED means "at least this many".
 */
export const MAX_COUNTED = 1000;

/** Checks a browse's arguments, naming the one at fault. */
export function catalogBrowseOf(args: {
  field: CatalogOrderField;
  direction: CatalogDirection;
  filter?: CatalogFilter | null;
  search?: string | null;
}): CatalogBrowse {
  const filter = args.filter ?? {};
  if (filter.author != null && (filter.author.trim() === "" || filter.author.length > MAX_AUTHOR_LENGTH)) {
    throw new InvalidInputError(`filter.author must be 1 to ${MAX_AUTHOR_LENGTH} characters long and not blank.`, "filter");
  }
  if (filter.yearFrom != null && filter.yearTo != null && filter.yearFrom > filter.yearTo) {
    throw new InvalidInputError(`filter.yearFrom (${filter.yearFrom}) is after filter.yearTo (${filter.yearTo}).`, "filter");
  }
  const search = searchTermsOf(args.search);
  if (search !== null && search.words.length + 1 > MAX_SEARCH_WORDS) {
    throw new InvalidInputError(`search takes at most ${MAX_SEARCH_WORDS} words.`, "search");
  }
  return { field: args.field, direction: args.direction, filter, search };
}

/** A string that differs between any two browses a cursor must not cross: another order, filter or search. */
export function browseScope({ field, direction, filter, search }: CatalogBrowse): string {
  const words = search === null ? null : [...search.words, `${search.prefix}*`];
  return JSON.stringify([field, direction, filter.author ?? null, filter.yearFrom ?? null, filter.yearTo ?? null, words]);
}

/** What a cursor is made from: a book's id and its order keys. */
export type CatalogBook = Pick<BookDocument, "_id" | "title" | "year" | "purchase_count">;

/** The order key a cursor carries for a book: absent for ID, null for a book without a year. */
export function orderKeyOf(book: CatalogBook, field: CatalogOrderField): string | number | null | undefined {
  const key = ORDERS[field].key;
  return key === null ? undefined : (book[key] ?? null);
}

/** True when `key` is of a type the order's key takes (a cursor could only hold such a key). */
export function isOrderKey(field: CatalogOrderField, key: unknown): boolean {
  switch (field) {
    case "ID":
      return key === undefined;
    case "TITLE":
      return typeof key === "string";
    case "YEAR":
      return key === null || Number.isSafeInteger(key);
    case "PURCHASE_COUNT":
      return Number.isSafeInteger(key);
  }
}

export interface CatalogWindow {
  books: BookDocument[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/**
 * A window of the browse: `first` books after `after`, or the `last` books before `before` (read
 * backward, returned in order). Each query fetches one book more than asked to learn whether more follow.
 */
export async function browseCatalog(
  db: Db,
  browse: CatalogBrowse,
  window: { first: number; after: CatalogPosition | null } | { last: number; before: CatalogPosition | null },
  embeddedBuyers: number,
): Promise<CatalogWindow> {
  if ("first" in window) {
    checkWindowSize(window.first);
    const books = await walk(db, browse, 1, window.after, window.first + 1, embeddedBuyers);
    return { books: books.slice(0, window.first), hasNextPage: books.length > window.first, hasPreviousPage: window.after !== null };
  }
  checkWindowSize(window.last, "last");
  const books = await walk(db, browse, -1, window.before, window.last + 1, embeddedBuyers);
  return { books: books.slice(0, window.last).reverse(), hasNextPage: window.before !== null, hasPreviousPage: books.length > window.last };
}

/**
 * Up to `limit` books from `from` on, in the browse's order (`way` 1) or its reverse (-1). A keyset walk
 * past a cursor reads index ranges in turn until the window is full, each served in order by one query:
 * the books tied with the cursor's key after its id (a range per id type: integers, strings, ObjectIds),
 * then the keys beyond it (and, for YEAR, the books without one, which sort as mongod sorts missing
 * values: before every year ascending). Each query reads only as far as it returns books, whatever the
 * catalog's size; a catalog of one id type fills most windows with the first query.
 */
async function walk(db: Db, browse: CatalogBrowse, way: Sign, from: CatalogPosition | null, limit: number, embeddedBuyers: number) {
  const order = ORDERS[browse.field];
  const sign = ((browse.direction === "ASC" ? 1 : -1) * way) as Sign;
  const keyDirection = (order.ascending.key * sign) as Sign;
  const idDirection = (order.ascending.id * sign) as Sign;
  const sort: Document = order.key === null ? { _id: idDirection } : { [order.key]: keyDirection, _id: idDirection };
  const base = matchOf(browse);
  const ranges = from === null ? [{}] : rangesAfter(order.key, from, keyDirection, idDirection);
  const books: BookDocument[] = [];
  for (const range of ranges) {
    if (books.length >= limit) break;
    const found = await salesCollection(db)
      .find(allOf([base, range]), { projection: embeddedBuyersProjection(embeddedBuyers), ...hintOf(browse) })
      .sort(sort)
      .limit(limit - books.length)
      .toArray();
    books.push(...found);
  }
  return books;
}

/**
 * The ranges after a position, in walking order, each one interval of the order's index: its key's
 * later ids (one range per id type), then each range of later keys.
 */
function rangesAfter(
  key: KeyField | null,
  { key: value, id }: CatalogPosition,
  keyDirection: Sign,
  idDirection: Sign,
): Filter<BookDocument>[] {
  const laterIds = idRangesBeyond(id, idDirection === 1 ? "after" : "before").map((range) => ({ _id: range }));
  if (key === null) return laterIds;
  const tied = laterIds.map((range) => ({ [key]: value ?? null, ...range }));
  return [...tied, ...laterKeys(value ?? null, keyDirection, key === "year").map((range) => ({ [key]: range }))];
}

/** Predicates on an order key for the keys after `value`; a key that may be missing (null) has those before every number, as in mongod. */
function laterKeys(value: string | number | null, direction: Sign, mayBeMissing: boolean): Document[] {
  if (value === null) return direction === 1 ? [{ $gte: -Infinity }] : [];
  if (direction === 1) return [{ $gt: value }];
  return mayBeMissing ? [{ $lt: value }, { $eq: null }] : [{ $lt: value }];
}

/** The filter and search of a browse as one query, without any cursor. */
export function matchOf({ filter, search }: CatalogBrowse): Filter<BookDocument> {
  const year = { ...(filter.yearFrom == null ? {} : { $gte: filter.yearFrom }), ...(filter.yearTo == null ? {} : { $lte: filter.yearTo }) };
  return allOf([
    filter.author == null ? {} : { author: filter.author },
    Object.keys(year).length === 0 ? {} : { year },
    ...(search === null ? [] : searchPredicates(search)),
  ]);
}

/**
 * One predicate per search word on the multikey `search_words`. The index scan takes its bounds from the
 * first (mongod cannot intersect bounds on a multikey field): the longest whole word, likely the rarest,
 * else the last word's prefix; every other word is checked on the books that scan fetches.
 */
function searchPredicates({ words, prefix }: SearchTerms): Filter<BookDocument>[] {
  // Words hold only letters and digits, so the prefix needs no escaping to be a literal anchored regex.
  const byLength = [...words].sort((a, b) => b.length - a.length);
  return [...byLength.map((word) => ({ search_words: word })), { search_words: new RegExp(`^${prefix}`) }];
}

/**
 * The index that answers a browse. An author's books are few, so their index answers any order by
 * sorting them; a search is answered from its words' index, sorting what it matches; otherwise the
 * planner has the order's index (and YEAR's, for a year filter) to choose from.
 */
export function hintOf({ filter, search }: CatalogBrowse): { hint?: string } {
  if (filter.author != null) return { hint: AUTHOR_INDEX };
  return search === null ? {} : { hint: SEARCH_INDEX };
}

/** Predicates joined: merged into one document when no field repeats, else under `$and`. */
function allOf(parts: Filter<BookDocument>[]): Filter<BookDocument> {
  const present = parts.filter((part) => Object.keys(part).length > 0);
  const fields = present.flatMap((part) => Object.keys(part));
  if (new Set(fields).size === fields.length) return Object.assign({}, ...present) as Filter<BookDocument>;
  return { $and: present };
}

/**
 * How many books a browse holds: the whole catalog from the collection's metadata in constant time;
 * under a filter or a search, counted from the browse's index up to MAX_COUNTED.
 */
export async function countCatalog(db: Db, browse: CatalogBrowse): Promise<number> {
  const match = matchOf(browse);
  if (Object.keys(match).length === 0) return countBooks(db);
  return salesCollection(db).countDocuments(match, { limit: MAX_COUNTED, ...hintOf(browse) });
}
