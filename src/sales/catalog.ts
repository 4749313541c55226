// Browsing the catalog: books in one of four orders, filtered and searched, a window at a time from keyset cursors.
import type { Db, Document, Filter } from "mongodb";
import { checkWindowSize, countBooks, embeddedBuyersProjection, MAX_AUTHOR_LENGTH } from "./books";
import { SALES, salesCollection, type BookDocument, type BookId } from "./documents";
import { InvalidInputError, SearchTooBroadError } from "./errors";
import { idRangesBeyond } from "./id-order";
import { AUTHOR_INDEX, SEARCH_INDEX } from "./indexes";
import { MAX_SEARCH_WORDS, MIN_PREFIX_LENGTH, searchTermsOf, type SearchTerms } from "./search-words";

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

/**
 * The books a search may read per book its window asks for. A search reads its candidates, the books
 * holding its leading word, up to three times: once to count them when that word is the last one's
 * prefix (whole words are counted from the index alone), once for the window, once for its totalCount.
 * At three candidates per result, a search examines at most ten documents per book asked for
 * (`test/api/search-cost.test.ts` counts them with explain), whatever the catalog's size.
 */
export const SEARCH_CANDIDATES_PER_RESULT = 3;

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
  /** The query the window was read with, which its count reads again. */
  query: CatalogQuery;
}

/** A browse's filter and search as one filter, and the index that answers it (none: the planner chooses). */
export interface CatalogQuery {
  filter: Filter<BookDocument>;
  hint?: string;
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
    const query = await catalogQuery(db, browse, window.first);
    const books = await walk(db, browse, query, 1, window.after, window.first + 1, embeddedBuyers);
    return { books: books.slice(0, window.first), hasNextPage: books.length > window.first, hasPreviousPage: window.after !== null, query };
  }
  checkWindowSize(window.last, "last");
  const query = await catalogQuery(db, browse, window.last);
  const books = await walk(db, browse, query, -1, window.before, window.last + 1, embeddedBuyers);
  return {
    books: books.slice(0, window.last).reverse(),
    hasNextPage: window.before !== null,
    hasPreviousPage: books.length > window.last,
    query,
  };
}

/**
 * Up to `limit` books from `from` on, in the browse's order (`way` 1) or its reverse (-1). A keyset walk
 * past a cursor reads index ranges in turn until the window is full, each served in order by one query:
 * the books tied with the cursor's key after its id (a range per id type: integers, strings, ObjectIds),
 * then the keys beyond it (and, for YEAR, the books without one, which sort as mongod sorts missing
 * values: before every year ascending). Each query reads only as far as it returns books, whatever the
 * catalog's size; a catalog of one id type fills most windows with the first query. A hinted index (an
 * author's, a search's) does not give the order, so each query would read its books whole: one query
 * over every range reads them once.
 */
async function walk(
  db: Db,
  browse: CatalogBrowse,
  query: CatalogQuery,
  way: Sign,
  from: CatalogPosition | null,
  limit: number,
  embeddedBuyers: number,
) {
  const order = ORDERS[browse.field];
  const sign = ((browse.direction === "ASC" ? 1 : -1) * way) as Sign;
  const keyDirection = (order.ascending.key * sign) as Sign;
  const idDirection = (order.ascending.id * sign) as Sign;
  const sort: Document = order.key === null ? { _id: idDirection } : { [order.key]: keyDirection, _id: idDirection };
  const after = from === null ? [{}] : rangesAfter(order.key, from, keyDirection, idDirection);
  const ranges = query.hint !== undefined && after.length > 1 ? [{ $or: after }] : after;
  const hint = query.hint === undefined ? {} : { hint: query.hint };
  const books: BookDocument[] = [];
  for (const range of ranges) {
    if (books.length >= limit) break;
    const found = await salesCollection(db)
      .find(allOf([query.filter, range]), { projection: embeddedBuyersProjection(embeddedBuyers), ...hint })
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

/**
 * The query a browse's window of `results` books is read with. An author's books are few, so their index
 * answers any order by sorting them; a search is answered from its words' index, sorting the books its
 * leading word finds (see `searchLead`); otherwise the planner has the order's index (and YEAR's, for a
 * year filter) to choose from.
 */
export async function catalogQuery(db: Db, browse: CatalogBrowse, results: number): Promise<CatalogQuery> {
  const { filter, search } = browse;
  const year = { ...(filter.yearFrom == null ? {} : { $gte: filter.yearFrom }), ...(filter.yearTo == null ? {} : { $lte: filter.yearTo }) };
  const parts: Filter<BookDocument>[] = [
    filter.author == null ? {} : { author: filter.author },
    Object.keys(year).length === 0 ? {} : { year },
  ];
  if (filter.author != null) parts.push(...(search === null ? [] : searchPredicates(search)));
  else if (search !== null) {
    const budget = SEARCH_CANDIDATES_PER_RESULT * Math.max(results, 1);
    return { filter: allOf([...parts, ...(await searchLead(db, search, budget))]), hint: SEARCH_INDEX };
  }
  return { filter: allOf(parts), ...(filter.author == null ? {} : { hint: AUTHOR_INDEX }) };
}

/** One predicate per search word on the multikey `search_words`, each whole word, then the last word as a prefix. */
function searchPredicates({ words, prefix }: SearchTerms): Filter<BookDocument>[] {
  // Words hold only letters and digits, so the prefix needs no escaping to be a literal anchored regex.
  return [...words.map((word) => ({ search_words: word })), { search_words: new RegExp(`^${prefix}`) }];
}

/**
 * A search's predicates, the one that bounds its reads first. mongod cannot intersect the bounds of two
 * predicates on the multikey `search_words`, so the index scan takes one word's range and every other
 * word is checked on the books it fetches: those books are the search's candidates, and every read of
 * the search examines them all (the window sorts them). Each word in turn, longest first (likely the
 * rarest), then the last word's prefix if it is long enough, is counted in the index, up to `budget`
 * books; the first within it leads. When none is, the search is refused before anything is read.
 */
async function searchLead(db: Db, search: SearchTerms, budget: number): Promise<Filter<BookDocument>[]> {
  const predicates = searchPredicates(search);
  const wholeWords = predicates.slice(0, -1).sort((a, b) => String(b.search_words).length - String(a.search_words).length);
  const bounding = search.prefix.length >= MIN_PREFIX_LENGTH ? [...wholeWords, predicates.at(-1)!] : wholeWords;
  for (const lead of bounding) {
    if ((await countCandidates(db, lead, budget + 1)) <= budget) return [lead, ...predicates.filter((other) => other !== lead)];
  }
  throw new SearchTooBroadError(
    bounding.length === 0
      ? `search needs a word of ${MIN_PREFIX_LENGTH} letters at least: a shorter last word only narrows what another word finds.`
      : `Each word of the search is in more than ${budget} books, more than this window may read: add a word, type more of the last one, or ask for more books with first (up to 100).`,
  );
}

/**
 * How many books hold a search word, counted up to `limit`. The `count` command: mongod counts a word's
 * keys in the multikey index without fetching a book (COUNT_SCAN), where an aggregation's count fetches.
 */
async function countCandidates(db: Db, predicate: Filter<BookDocument>, limit: number): Promise<number> {
  const counted = await db.command({ count: SALES, query: predicate, limit, hint: SEARCH_INDEX });
  return counted["n"] as number;
}

/** Predicates joined: merged into one document when no field repeats, else under `$and`. */
function allOf(parts: Filter<BookDocument>[]): Filter<BookDocument> {
  const present = parts.filter((part) => Object.keys(part).length > 0);
  const fields = present.flatMap((part) => Object.keys(part));
  if (new Set(fields).size === fields.length) return Object.assign({}, ...present) as Filter<BookDocument>;
  return { $and: present };
}

/**
 * How many books a window's query finds: the whole catalog from the collection's metadata in constant
 * time; under a filter or a search, counted from the query's index up to MAX_COUNTED.
 */
export async function countCatalog(db: Db, { filter, hint }: CatalogQuery): Promise<number> {
  if (Object.keys(filter).length === 0) return countBooks(db);
  return salesCollection(db).countDocuments(filter, { limit: MAX_COUNTED, ...(hint === undefined ? {} : { hint }) });
}
