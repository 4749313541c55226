import type { Db, Document } from "mongodb";
import type { OutlierSettings } from "../config";
import { bookIdKey, formatBookId } from "./book-ids";
import { EXTRA_SALES, SALES, extraSalesCollection, hasValidPageSize, salesCollection, type BookId } from "./documents";
import { stillHolds } from "./guards";
import { LEGACY_COLLECTIONS, legacyCollection, legacyOverflowFilter } from "./legacy-overflow";

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
  | "legacy-overflow";

/**
 * A guarded update that repairs a derived field: its filter holds every value the check read, so
 * it applies only if nothing changed since, and a purchase recorded meanwhile is never overwritten.
 */
export interface Repair {
  collection: typeof SALES | typeof EXTRA_SALES;
  filter: Document;
  set: Document;
}

export interface Violation {
  kind: ViolationKind;
  bookId: string;
  message: string;
  /** The numbers behind the message, for machines. */
  numbers: Record<string, number | string | boolean | null>;
  /** Present when `--fix` may repair it: counts and flags only, never a purchase. */
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
  const violations: Violation[] = [];
  const progress: CheckProgress = { booksChecked: 0, booksTotal: await salesCollection(db).countDocuments(), violations: 0 };
  for await (const book of salesCollection(db).aggregate<BookSummary>(BOOK_SUMMARY)) {
    const key = bookIdKey(book._id);
    violations.push(...checkBook(book, pagesByBook.get(key) ?? [], settings));
    pagesByBook.delete(key);
    progress.booksChecked += 1;
    progress.violations = violations.length;
    onProgress({ ...progress });
  }
  violations.push(...[...pagesByBook.values()].flat().map(orphanPage), ...(await legacyOverflowViolations(db)));
  return violations;
}

/** The invariants of one book and its pages, for callers that know which book they touched (tests, the benchmark). */
export async function findBookViolations(db: Db, bookId: BookId, settings: Pick<OutlierSettings, "outlierThreshold">): Promise<Violation[]> {
  const [book] = await salesCollection(db).aggregate<BookSummary>([{ $match: { _id: bookId } }, ...BOOK_SUMMARY]).toArray();
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
    const documents = await legacyCollection(db, collection).find(legacyOverflowFilter(collection), { projection: { book_id: 1 } }).toArray();
    violations.push(...documents.map(({ book_id }) => legacyOverflow(book_id, collection)));
  }
  return violations;
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
    return [{ kind: "not-migrated", bookId, message: "not in the bounded form (no valid extra_page_size or no embedded array): run `npm run migrate`", numbers: { extraPageSize: countValue(book.extra_page_size) } }];
  }
  const pageSize = book.extra_page_size as number;
  const overflow = pages.reduce((sum, page) => sum + page.entries, 0);
  return [
    ...checkEmbedded(bookId, book.embedded, settings.outlierThreshold),
    ...pages.flatMap((page, index) => checkPage(bookId, page, index, pageSize, index === pages.length - 1)),
    ...checkCount(book, bookId, book.embedded, overflow),
    ...checkFlag(book, bookId, overflow),
  ];
}

function checkEmbedded(bookId: string, embedded: number, threshold: number): Violation[] {
  if (embedded <= threshold) return [];
  return [{ kind: "embedded-over-threshold", bookId, message: `embeds ${embedded} purchases, over the threshold of ${threshold}`, numbers: { embedded, threshold } }];
}

function checkPage(bookId: string, page: PageSummary, index: number, pageSize: number, last: boolean): Violation[] {
  const numbers = { page: String(page.page), entries: page.entries };
  const found: Violation[] = [];
  if (page.page !== index) {
    found.push({ kind: "page-gap", bookId, message: `page number ${String(page.page)} where page ${index} belongs`, numbers: { ...numbers, expected: index } });
  }
  if (page.count !== page.entries) {
    found.push({
      kind: "page-count",
      bookId,
      message: `page ${String(page.page)} has count ${String(page.count)} but holds ${page.entries} purchases`,
      numbers: { ...numbers, count: countValue(page.count) },
      repair: {
        collection: EXTRA_SALES,
        filter: { book_id: page.book_id, page: page.page, count: stillHolds(page.count), customers_purchased_extra: { $size: page.entries } },
        set: { count: page.entries },
      },
    });
  }
  if (page.entries > pageSize) {
    found.push({ kind: "page-over-size", bookId, message: `page ${String(page.page)} holds ${page.entries} purchases, over the page size of ${pageSize}`, numbers: { ...numbers, pageSize } });
  } else if (!last && page.entries < pageSize) {
    found.push({ kind: "page-not-full", bookId, message: `page ${String(page.page)} holds ${page.entries} of ${pageSize} purchases but is not the last page`, numbers: { ...numbers, pageSize } });
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
      message: `has_extras is ${JSON.stringify(book.has_extras) ?? "missing"} with ${overflow} overflow purchases` + (unsafe ? "; left set, since a purchase may be landing in extra_sales" : ""),
      numbers: { stored: flagValue(book.has_extras), overflow },
      ...(unsafe ? {} : { repair: { collection: SALES, filter: { _id: book._id, has_extras: stillHolds(book.has_extras) }, set: { has_extras: expected } } }),
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

/** Applies each violation's guarded repair; "changed" means the data moved on since it was checked, so nothing was written. */
export async function repairViolations(db: Db, violations: readonly Violation[]): Promise<Map<Violation, RepairOutcome>> {
  const outcomes = new Map<Violation, RepairOutcome>();
  for (const violation of violations) {
    if (!violation.repair) continue;
    const { collection, filter, set } = violation.repair;
    const { matchedCount } = await db.collection(collection).updateOne(filter, { $set: set });
    outcomes.set(violation, matchedCount === 1 ? "repaired" : "changed");
  }
  return outcomes;
}
