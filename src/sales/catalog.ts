// Browsing the catalog: books in one of four orders, filtered and searched, a window at a time from keyset cursors.
import type { Db, Document, Filter } from "mongodb";
import { checkWindowSize, countBooks, embeddedBuyersProjection, MAX_AUTHOR_LENGTH } from "./books";
import { SALES, salesCollection, type BookDocument, type BookId } from "./documents";
import { InvalidInputError, SearchTooBroadError } from "./errors";
import { idRangesBeyond } from "./id-order";
import { AUTHOR_INDEX, SEARCH_INDEX, SEARCH_TITLE_INDEX, SEARCH_YEAR_INDEX } from "./indexes";
import { MAX_SEARCH_WORDS, MIN_PREFIX_LENGTH, prefixKey, searchTermsOf, type SearchTerms } from "./search-words";

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
 * The books a search with more than one term may read per book its window asks for. Such a search
 * reads its candidates, the books holding its leading term, at most twice: once for the window, once
 * for its totalCount (each term is counted from the index alone, fetching nothing). At three candidates
 * per result, a search examines at most ten documents per book asked for
 * (`test/sales/search-cost.test.ts` counts them with explain), whatever the catalog's size.
 */
export const SEARCH_CANDIDATES_PER_RESULT = 3;

/**
 * The index that walks a search's leading term in each order: the term is one point of it, and the
 * books under it come in the order's own, so a window reads only itself. PURCHASE_COUNT has none:
 * every purchase would move one key per word and prefix of its book.
 */
const SEARCH_ORDER_INDEX: Record<CatalogOrderField, string | null> = {
  ID: SEARCH_INDEX,
  TITLE: SEARCH_TITLE_INDEX,
  YEAR: SEARCH_YEAR_INDEX,
  PURCHASE_COUNT: null,
};

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
  /** True when the hinted index gives the browse's order, so that a query reads only as far as it returns books. */
  ordered?: boolean;
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
  countTerm: TermCount = termCounter(db),
): Promise<CatalogWindow> {
  if ("first" in window) {
    checkWindowSize(window.first);
    const query = await catalogQuery(browse, window.first, countTerm);
    const books = await walk(db, browse, query, 1, window.after, window.first + 1, embeddedBuyers);
    return { books: books.slice(0, window.first), hasNextPage: books.length > window.first, hasPreviousPage: window.after !== null, query };
  }
  checkWindowSize(window.last, "last");
  const query = await catalogQuery(browse, window.last, countTerm);
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
 * catalog's size; a catalog of one id type fills most windows with the first query. A hinted index that
 * does not give the order (an author's, a search's by PURCHASE_COUNT) would have each query read its
 * books whole: one query over every range reads them once.
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
  const ranges = query.hint !== undefined && query.ordered !== true && after.length > 1 ? [{ $or: after }] : after;
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
 * answers any order by sorting them; a search is answered from its terms' index (see `searchQuery`);
 * otherwise the planner has the order's index (and YEAR's, for a year filter) to choose from.
 */
async function catalogQuery(browse: CatalogBrowse, results: number, countTerm: TermCount): Promise<CatalogQuery> {
  const { filter, search } = browse;
  const year = { ...(filter.yearFrom == null ? {} : { $gte: filter.yearFrom }), ...(filter.yearTo == null ? {} : { $lte: filter.yearTo }) };
  const parts: Filter<BookDocument>[] = [
    filter.author == null ? {} : { author: filter.author },
    Object.keys(year).length === 0 ? {} : { year },
  ];
  if (filter.author != null)
    return { filter: allOf([...parts, ...(search === null ? [] : [termsCheck(search, null)])]), hint: AUTHOR_INDEX };
  if (search !== null) return searchQuery(countTerm, browse.field, search, year, results);
  return { filter: allOf(parts) };
}

/** The index keys of a search's terms: each whole word, then the last word's prefix if it is long enough to be stored. */
function termKeys({ words, prefix }: SearchTerms): string[] {
  return prefix.length >= MIN_PREFIX_LENGTH ? [...words, prefixKey(prefix)] : words;
}

const STORED_TERMS = { $ifNull: ["$search_words", []] };

/**
 * The terms of a search but its leading one (`lead`), checked on each book the lead finds. An `$expr`,
 * so that the leading term is the only predicate on `search_words` mongod may bound the index with: it
 * cannot intersect two on a multikey field, and would otherwise choose one by trial.
 */
function termsCheck(search: SearchTerms, lead: string | null): Filter<BookDocument> {
  const conditions: Document[] = termKeys(search)
    .filter((key) => key !== lead)
    .map((key) => ({ $in: [key, STORED_TERMS] }));
  if (search.prefix.length < MIN_PREFIX_LENGTH) {
    const starts = { $eq: [{ $substrCP: ["$$this", 0, search.prefix.length] }, search.prefix] };
    conditions.push({ $anyElementTrue: [{ $map: { input: STORED_TERMS, in: starts } }] });
  }
  return conditions.length === 0 ? {} : { $expr: { $and: conditions } };
}

/**
 * A search's query, bounded by its narrowest term. A search of one term (and, by YEAR, a year range) is
 * one range of the order's search index, read in order, so its window reads only the books it returns
 * on any catalog. A search that checks more on each book it reads (more terms, a year range in another
 * order, or the PURCHASE_COUNT order, which has no search index of its own) reads the books of its
 * leading term until its window is full, which could be all of them: the term held by the fewest books
 * leads, counted in the index up to `results` × SEARCH_CANDIDATES_PER_RESULT, and a search whose every
 * term is in more books than that is refused before anything is read.
 */
async function searchQuery(
  countTerm: TermCount,
  field: CatalogOrderField,
  search: SearchTerms,
  year: Document,
  results: number,
): Promise<CatalogQuery> {
  const keys = termKeys(search);
  if (keys.length === 0) {
    throw new SearchTooBroadError(
      `search needs a word of ${MIN_PREFIX_LENGTH} letters at least: a shorter last word only narrows what another word finds.`,
    );
  }
  const ordered = SEARCH_ORDER_INDEX[field];
  const yearFilter = Object.keys(year).length === 0 ? {} : { year };
  const queryOf = (lead: string, hint: string): CatalogQuery => ({
    filter: { search_words: lead, ...yearFilter, ...termsCheck(search, lead) },
    hint,
    ordered: hint === ordered,
  });
  const alone = keys.length === 1 && search.prefix.length >= MIN_PREFIX_LENGTH && (field === "YEAR" || Object.keys(year).length === 0);
  if (ordered !== null && alone) return queryOf(keys[0]!, ordered);
  const budget = SEARCH_CANDIDATES_PER_RESULT * Math.max(results, 1);
  // One count after another: the browse holds one connection of the request's pool share.
  const counted: { key: string; books: number }[] = [];
  for (const key of keys) counted.push({ key, books: await countTerm(key, budget + 1) });
  const lead = counted.reduce((narrowest, term) => (term.books < narrowest.books ? term : narrowest));
  if (lead.books <= budget) return queryOf(lead.key, ordered ?? SEARCH_INDEX);
  throw new SearchTooBroadError(
    ordered === null && keys.length === 1
      ? `"${search.prefix}" is in more than ${budget} books, more than this window may read in this order: browse by another order, add a word, type more of it, or ask for more books with first (up to 100).`
      : `Each word of the search is in more than ${budget} books, more than this window may read: add a rarer word, type more of the last one, or ask for more books with first (up to 100).`,
  );
}

/** How many books hold a search term, counted up to `limit`. */
export type TermCount = (key: string, limit: number) => Promise<number>;

/**
 * Counts a search term's books with the `count` command: mongod counts a term's keys in the multikey index
 * without fetching a book (COUNT_SCAN), where an aggregation's count fetches. Each term and limit is counted
 * once by one counter: a request's aliases that repeat a search (an amplifier, issue 35) cost one count, not
 * one each; a counter lives as long as its request, so no count outlives the request that asked for it.
 */
export function termCounter(db: Db): TermCount {
  const counts = new Map<string, Promise<number>>();
  return (key, limit) => {
    const entry = `${limit} ${key}`;
    let count = counts.get(entry);
    if (!count) {
      count = countCommand(db, { search_words: key }, limit, SEARCH_INDEX);
      // A failed count is sent again by the next alias that needs it, as it would have been before.
      count.catch(() => counts.delete(entry));
      counts.set(entry, count);
    }
    return count;
  };
}

async function countCommand(db: Db, query: Filter<BookDocument>, limit: number, hint: string): Promise<number> {
  const counted = await db.command({ count: SALES, query, limit, hint });
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
  // A search's count is one range of its index when it checks nothing on the books: counted from the keys alone.
  if (hint !== undefined && "search_words" in filter) return countCommand(db, filter, MAX_COUNTED, hint);
  return salesCollection(db).countDocuments(filter, { limit: MAX_COUNTED, ...(hint === undefined ? {} : { hint }) });
}
