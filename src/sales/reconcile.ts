import type { Db, Document } from "mongodb";
import type { OutlierSettings } from "../config";
import { isDuplicateKeyError } from "../db/errors";
import { indexLabel, type RequiredIndex } from "../db/indexes";
import { findMissingSalesIndexes, UNIQUE_PAGE_INDEX } from "./indexes";
import { bookIdKey, formatBookId } from "./book-ids";
import { EXTRA_SALES, SALES, extraSalesCollection, hasValidPageSize, salesCollection, type BookId } from "./documents";
import { stillHolds } from "./guards";
import { findLegacyOverflow, LEGACY_COLLECTIONS } from "./legacy-overflow";
import { interruptedRelayouts, relayOutPages } from "./page-relayout";

export type ViolationKind =
  | "purchase-count"
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

export interface CheckProgress {
  booksChecked: number;
  booksTotal: number;
  violations: number;
}

/**
 * Checks every book against the pattern's invariants and returns what is broken. Reads summaries
 * computed by the server (array lengths, not the arrays), so its cost is one pass over each collection.
 */
export async function findViolations(
  db: Db,
  settings: Pick<OutlierSettings, "outlierThreshold">,
  onProgress: (progress: CheckProgress) => void = () => {},
): Promise<Violation[]> {
  const pagesByBook = await readPageSummaries(db);
  // A book whose page rewrite was cut off is checked once it is finished: its pages and count are mid-way.
  const interrupted = await interruptedRelayouts(db);
  const rewriting = new Set(interrupted.map(bookIdKey));
  const violations: Violation[] = [];
  const progress: CheckProgress = { booksChecked: 0, booksTotal: await salesCollection(db).countDocuments(), violations: 0 };
  for await (const book of salesCollection(db).aggregate<BookSummary>(BOOK_SUMMARY)) {
    const key = bookIdKey(book._id);
    if (!rewriting.has(key)) violations.push(...checkBook(book, pagesByBook.get(key) ?? [], settings));
    pagesByBook.delete(key);
    progress.booksChecked += 1;
    progress.violations = violations.length;
    onProgress({ ...progress });
  }
  violations.push(...[...pagesByBook.values()].flat().map(orphanPage), ...(await legacyOverflowViolations(db)));
  // Last, so that --fix creates the indexes once the duplicates that would block them are repaired.
  violations.push(...(await interruptedRelayoutViolations(db, interrupted)), ...(await missingIndexViolations(db)));
  return violations;
}

/** The invariants of one book and its pages, for callers that know which book they touched (tests, the benchmark). */
export async function findBookViolations(
  db: Db,
  bookId: BookId,
  settings: Pick<OutlierSettings, "outlierThreshold">,
): Promise<Violation[]> {
  const [book] = await salesCollection(db)
    .aggregate<BookSummary>([{ $match: { _id: bookId } }, ...BOOK_SUMMARY])
    .toArray();
  if (!book) return [];
  const pages = (await readPageSummaries(db, { book_id: bookId })).get(bookIdKey(bookId)) ?? [];
  return checkBook(book, pages, settings);
}

const BOOK_SUMMARY = [
  { $sort: { _id: 1 } },
  {
    $project: {
      has_extras: 1,
      purchase_count: 1,
      extra_page_size: 1,
      embedded: { $cond: [{ $isArray: "$customers_purchased" }, { $size: "$customers_purchased" }, null] },
    },
  },
];

async function readPageSummaries(db: Db, filter: Document = {}): Promise<Map<string, PageSummary[]>> {
  const pages = await extraSalesCollection(db)
    .aggregate<PageSummary>([
      { $match: { ...filter, page: { $exists: true } } },
      { $sort: { book_id: 1, page: 1 } },
      { $project: { _id: 0, book_id: 1, page: 1, count: 1, entries: { $size: { $ifNull: ["$customers_purchased_extra", []] } } } },
    ])
    .toArray();
  const byBook = new Map<string, PageSummary[]>();
  for (const page of pages) {
    const key = bookIdKey(page.book_id);
    byBook.set(key, [...(byBook.get(key) ?? []), page]);
  }
  return byBook;
}

async function legacyOverflowViolations(db: Db): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const collection of LEGACY_COLLECTIONS) {
    const documents = await (await findLegacyOverflow<{ book_id: BookId }>(db, collection, { book_id: 1 })).toArray();
    violations.push(...documents.map(({ book_id }) => legacyOverflow(book_id, collection)));
  }
  return violations;
}

async function interruptedRelayoutViolations(db: Db, books: BookId[]): Promise<Violation[]> {
  const sizes = await salesCollection(db)
    .find({ _id: { $in: books } }, { projection: { extra_page_size: 1 } })
    .toArray();
  return sizes.filter(hasValidPageSize).map((book) => ({
    kind: "duplicate-pages",
    bookId: formatBookId(book._id),
    message: "a repair of duplicate pages was cut off half-way; --fix finishes it from its journal",
    numbers: {},
    repair: { relayout: book._id, pageSize: book.extra_page_size as number },
  }));
}

async function missingIndexViolations(db: Db): Promise<Violation[]> {
  return (await findMissingSalesIndexes(db)).map((index) => ({
    kind: "missing-index",
    message:
      `index ${indexLabel(index)} is missing` +
      (index.name === UNIQUE_PAGE_INDEX ? ": purchases into extra_sales are refused until it is back" : ""),
    numbers: { index: indexLabel(index) },
    repair: { index },
  }));
}

function legacyOverflow(bookId: BookId, collection: string): Violation {
  return {
    kind: "legacy-overflow",
    bookId: formatBookId(bookId),
    message: `an overflow document without a page number in ${collection}: run \`npm run migrate\``,
    numbers: { collection },
  };
}

function orphanPage(page: PageSummary): Violation {
  return {
    kind: "orphan-page",
    bookId: formatBookId(page.book_id),
    message: `extra_sales page ${String(page.page)} (${page.entries} purchases) belongs to no book; left in place`,
    numbers: { page: String(page.page), entries: page.entries },
  };
}

/** The invariants of one book and its pages (sorted by page number); pure. */
export function checkBook(book: BookSummary, pages: PageSummary[], settings: Pick<OutlierSettings, "outlierThreshold">): Violation[] {
  const bookId = formatBookId(book._id);
  if (!hasValidPageSize(book) || book.embedded === null) {
    return [
      {
        kind: "not-migrated",
        bookId,
        message: "not in the bounded form (no valid extra_page_size or no embedded array): run `npm run migrate`",
        numbers: { extraPageSize: countValue(book.extra_page_size) },
      },
    ];
  }
  const pageSize = book.extra_page_size as number;
  const overflow = pages.reduce((sum, page) => sum + page.entries, 0);
  const duplicates = duplicatePages(book, bookId, pages, pageSize);
  return [
    ...checkEmbedded(bookId, book.embedded, settings.outlierThreshold),
    // Pages sharing a number would each be reported as gaps and partial pages: the relayout repairs them all at once.
    ...(duplicates.length > 0
      ? duplicates
      : pages.flatMap((page, index) => checkPage(bookId, page, index, pageSize, index === pages.length - 1))),
    ...checkCount(book, bookId, book.embedded, overflow),
    ...checkFlag(book, bookId, overflow),
  ];
}

/** Pages sharing a number, as racing purchases leave them while the unique page index is missing. */
function duplicatePages(book: BookSummary, bookId: string, pages: PageSummary[], pageSize: number): Violation[] {
  const numbers = pages.map((page) => String(page.page));
  const duplicated = numbers.filter((number, index) => numbers.indexOf(number) !== index);
  if (duplicated.length === 0) return [];
  return [
    {
      kind: "duplicate-pages",
      bookId,
      message: `${duplicated.length} extra_sales documents repeat a page number (${[...new Set(duplicated)].join(", ")}), so readers miss their purchases; --fix rewrites the pages, keeping every purchase`,
      numbers: { documents: pages.length, duplicates: duplicated.length },
      repair: { relayout: book._id, pageSize },
    },
  ];
}

function checkEmbedded(bookId: string, embedded: number, threshold: number): Violation[] {
  if (embedded <= threshold) return [];
  return [
    {
      kind: "embedded-over-threshold",
      bookId,
      message: `embeds ${embedded} purchases, over the threshold of ${threshold}`,
      numbers: { embedded, threshold },
    },
  ];
}

function checkPage(bookId: string, page: PageSummary, index: number, pageSize: number, last: boolean): Violation[] {
  const numbers = { page: String(page.page), entries: page.entries };
  const found: Violation[] = [];
  if (page.page !== index) {
    found.push({
      kind: "page-gap",
      bookId,
      message: `page number ${String(page.page)} where page ${index} belongs`,
      numbers: { ...numbers, expected: index },
    });
  }
  if (page.count !== page.entries) {
    found.push({
      kind: "page-count",
      bookId,
      message: `page ${String(page.page)} has count ${String(page.count)} but holds ${page.entries} purchases`,
      numbers: { ...numbers, count: countValue(page.count) },
      repair: {
        collection: EXTRA_SALES,
        filter: {
          book_id: page.book_id,
          page: page.page,
          count: stillHolds(page.count),
          customers_purchased_extra: { $size: page.entries },
        },
        set: { count: page.entries },
      },
    });
  }
  if (page.entries > pageSize) {
    found.push({
      kind: "page-over-size",
      bookId,
      message: `page ${String(page.page)} holds ${page.entries} purchases, over the page size of ${pageSize}`,
      numbers: { ...numbers, pageSize },
    });
  } else if (!last && page.entries < pageSize) {
    found.push({
      kind: "page-not-full",
      bookId,
      message: `page ${String(page.page)} holds ${page.entries} of ${pageSize} purchases but is not the last page`,
      numbers: { ...numbers, pageSize },
    });
  }
  return found;
}

/**
 * The count may lag behind the entries while a purchase is in flight (it is incremented last), so
 * the repair is guarded on the count and embedded length read; see the README on running it live.
 */
function checkCount(book: BookSummary, bookId: string, embedded: number, overflow: number): Violation[] {
  const expected = embedded + overflow;
  if (book.purchase_count === expected) return [];
  return [
    {
      kind: "purchase-count",
      bookId,
      message: `purchase_count is ${String(book.purchase_count)} but it holds ${embedded} embedded + ${overflow} overflow = ${expected} purchases`,
      numbers: { stored: countValue(book.purchase_count), embedded, overflow, expected },
      repair: {
        collection: SALES,
        filter: { _id: book._id, purchase_count: stillHolds(book.purchase_count), customers_purchased: { $size: embedded } },
        set: { purchase_count: expected },
      },
    },
  ];
}

/**
 * A flag set without overflow is the moment between recordPurchase's steps 2 and 3; unsetting it
 * could hide the purchase about to land, so only flags that say less than the data are repaired.
 */
function checkFlag(book: BookSummary, bookId: string, overflow: number): Violation[] {
  const expected = overflow > 0;
  if (book.has_extras === expected) return [];
  const unsafe = book.has_extras === true;
  return [
    {
      kind: "has-extras",
      bookId,
      message:
        `has_extras is ${JSON.stringify(book.has_extras) ?? "missing"} with ${overflow} overflow purchases` +
        (unsafe ? "; left set, since a purchase may be landing in extra_sales" : ""),
      numbers: { stored: flagValue(book.has_extras), overflow },
      ...(unsafe
        ? {}
        : {
            repair: {
              collection: SALES,
              filter: { _id: book._id, has_extras: stillHolds(book.has_extras) },
              set: { has_extras: expected },
            },
          }),
    },
  ];
}

function countValue(value: unknown): number | string | null {
  return typeof value === "number" ? value : value === undefined ? null : String(value);
}

function flagValue(value: unknown): boolean | string | null {
  return typeof value === "boolean" ? value : value === undefined ? null : String(value);
}

export type RepairOutcome = "repaired" | "changed";

/** Applies each violation's repair; "changed" means the data moved on since it was checked, so nothing was written. */
export async function repairViolations(db: Db, violations: readonly Violation[]): Promise<Map<Violation, RepairOutcome>> {
  const outcomes = new Map<Violation, RepairOutcome>();
  for (const violation of violations) {
    if (violation.repair) outcomes.set(violation, await applyRepair(db, violation.repair));
  }
  return outcomes;
}

async function applyRepair(db: Db, repair: Repair): Promise<RepairOutcome> {
  if ("relayout" in repair) {
    // With the index back, the API appends to pages again and would race the rewrite: then it is too late.
    const pageIndexMissing = (await findMissingSalesIndexes(db)).some((index) => index.name === UNIQUE_PAGE_INDEX);
    if (!pageIndexMissing) return "changed";
    await relayOutPages(db, repair.relayout, repair.pageSize);
    return "repaired";
  }
  if ("index" in repair) return createIndex(db, repair.index);
  const { matchedCount } = await db.collection(repair.collection).updateOne(repair.filter, { $set: repair.set });
  return matchedCount === 1 ? "repaired" : "changed";
}

async function createIndex(db: Db, { collection, name, key, ...options }: RequiredIndex): Promise<RepairOutcome> {
  try {
    await db.collection(collection).createIndex(key, { name, ...options });
    return "repaired";
  } catch (error) {
    if (isDuplicateKeyError(error)) return "changed";
    throw error;
  }
}
