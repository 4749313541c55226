import { isDeepStrictEqual } from "node:util";
import type { Collection, Db, Filter } from "mongodb";
import type { OutlierSettings } from "../config";
import { bookIdKey, formatBookId } from "../sales/book-ids";
import { SALES, extraSalesCollection, hasValidPageSize, type BookId, type BookDocument } from "../sales/documents";
import { searchWordsOf } from "../sales/search-words";
import { layOutPurchases, type LaidOutBook } from "./layout";
import { stillHolds } from "./guards";
import {
  LEGACY_COLLECTIONS,
  LEGACY_SALES_EXTRAS,
  isCustomerList,
  findLegacyExtraSales,
  legacyCollection,
  legacyEntries,
  legacyEntriesField,
  legacyExtraSalesFilter,
  type LegacyExtraSales,
} from "./legacy-extra-sales";

/** A `sales` document as found, before anything is assumed about the pattern's fields. */
export type StoredBook = Omit<BookDocument, "customers_purchased" | "has_extras" | "purchase_count" | "extra_page_size"> & {
  customers_purchased?: unknown;
  has_extras?: unknown;
  purchase_count?: unknown;
  extra_page_size?: unknown;
};

export type BookPlan =
  | { action: "none" }
  | { action: "convert"; target: LaidOutBook; legacy: LegacyExtraSales[]; moved: number }
  | { action: "remove-copied-legacy"; legacy: LegacyExtraSales[] }
  | { action: "skip"; reason: string };

/** What a legacy book needs besides its own document: its legacy extra sales, and the pages an earlier run may have written. */
export interface LegacyState {
  legacy: LegacyExtraSales[];
  existingPages: number[];
}

/**
 * Decides, from one book as read, what bringing it into the bounded form takes. Pure, so a
 * dry run and a real run plan alike and a re-run after a crash plans the same target again.
 *
 * A book without a valid `extra_page_size` is the only kind converted: the API refuses to write
 * or read its extra sales (`pageSizeOf`), so the migration's pages cannot collide with the API's.
 */
export function planBookMigration(book: StoredBook, state: LegacyState, settings: OutlierSettings): BookPlan {
  const embedded = book.customers_purchased ?? [];
  if (!isCustomerList(embedded)) return skip("customers_purchased is not a list of customer ids");
  if (hasValidPageSize(book)) return planBoundedBook(book, embedded, state.legacy, settings);
  if (state.legacy.length > 1) {
    return skip(`${state.legacy.length} legacy extra-sales documents whose order cannot be told apart; merge them by hand`);
  }
  const legacyBuyers = state.legacy[0] ? legacyEntries(state.legacy[0].document) : [];
  if (legacyBuyers === null) return skip("its legacy extra-sales document holds no list of customer ids");

  const customers = [...embedded, ...legacyBuyers];
  const pageSize = settings.extraSalesPageSize;
  const target = layOutPurchases(
    {
      ...book,
      search_words: storedWordsOf(book),
      customers_purchased: [],
      has_extras: false,
      purchase_count: 0,
      extra_page_size: pageSize,
    },
    customers,
    settings,
  );
  const stray = state.existingPages.filter((page) => page >= target.pages.length);
  if (stray.length > 0) {
    return skip(
      `extra_sales already holds page ${stray[0]} of it, past the ${target.pages.length} pages its purchases fill (were the settings changed since an interrupted run?)`,
    );
  }
  return {
    action: "convert",
    target,
    legacy: state.legacy,
    moved: customers.length - Math.min(embedded.length, settings.outlierThreshold),
  };
}

/** A book with a page size may be receiving purchases now, so only what a migration provably left unfinished is touched. */
function planBoundedBook(book: StoredBook, embedded: string[], legacy: LegacyExtraSales[], settings: OutlierSettings): BookPlan {
  if (legacy.some(({ document }) => document.migrated_entries === undefined)) {
    return skip(
      "a legacy extra-sales document that no migration copied, for a book already in the bounded form: its place in the purchase order is unknown",
    );
  }
  const grown = legacy.find(({ document }) => legacyEntries(document)?.length !== document.migrated_entries);
  if (grown) {
    return skip(
      `its legacy extra-sales document in ${grown.collection} changed after its ${grown.document.migrated_entries} entries were copied (is the old application still writing?); it is kept`,
    );
  }
  if (legacy.length > 0) return { action: "remove-copied-legacy", legacy };
  if (embedded.length > settings.outlierThreshold) {
    return skip(
      `${embedded.length} embedded purchases, over the threshold of ${settings.outlierThreshold}, in a book already in the bounded form (was OUTLIER_THRESHOLD lowered?); readers handle it, so it is left as is`,
    );
  }
  if (typeof book.has_extras !== "boolean" || typeof book.purchase_count !== "number") {
    return skip("has_extras or purchase_count is not of the right type: `npm run reconcile -- --fix` repairs it");
  }
  return { action: "none" };
}

function skip(reason: string): BookPlan {
  return { action: "skip", reason };
}

/** One write the migration is about to make; tests use the hook to stop or interleave between writes. */
export interface MigrationStep {
  kind: "mark-legacy" | "write-page" | "commit-book" | "remove-legacy";
  bookId: BookId;
}

export interface MigrationProgress {
  booksChecked: number;
  booksTotal: number;
  booksConverted: number;
  /** Books already bounded whose search words were missing or stale (written before the search existed, or by another writer), now set. */
  searchWordsSet: number;
  purchasesMoved: number;
  legacyDocumentsRemoved: number;
}

export interface MigrationReport extends MigrationProgress {
  dryRun: boolean;
  /** Books left as they were, each with why and what to do. */
  needsAttention: { bookId: string; reason: string }[];
  /** Legacy extra-sales documents whose book does not exist: reported, never removed. */
  orphanLegacyDocuments: { collection: string; bookId: string }[];
}

export interface MigrationOptions {
  dryRun?: boolean;
  onProgress?: (progress: MigrationProgress) => void;
  /** Awaited before every write; a test hook to stop the run or record purchases between writes. */
  beforeWrite?: (step: MigrationStep) => void | Promise<void>;
}

// The API only appends, so a book that keeps changing under the guard settles within a few attempts unless it is very hot.
const MAX_ATTEMPTS = 10;

/**
 * Brings every book into the bounded form the API writes, book by book. Safe to stop at any
 * point and run again, and safe while the API records purchases (see docs/operations/tools.md, npm run migrate):
 *  1. mark each legacy extra-sales document with the number of entries being copied (guarded on that number);
 *  2. write the target pages, each replacing the page of that number with its exact content;
 *  3. commit: one guarded update of the book that truncates the embedded array and sets the flag,
 *     the count and the page size at once, applied only if the book is still exactly as read;
 *  4. remove the legacy extra-sales documents, only if they still hold the marked number of entries.
 * Until step 3 the book has no page size, so nothing reads the new pages; from step 3 on the legacy documents are ignored.
 */
export async function migrateCatalog(db: Db, settings: OutlierSettings, options: MigrationOptions = {}): Promise<MigrationReport> {
  const report: MigrationReport = {
    dryRun: options.dryRun ?? false,
    booksChecked: 0,
    booksTotal: await books(db).estimatedDocumentCount(),
    booksConverted: 0,
    searchWordsSet: 0,
    purchasesMoved: 0,
    legacyDocumentsRemoved: 0,
    needsAttention: [],
    orphanLegacyDocuments: [],
  };
  await indexLegacyCollection(db);
  const legacyBookIds = await findLegacyBookIds(db);
  const write = writer(options.beforeWrite);

  for await (const book of books(db).find().sort({ _id: 1 })) {
    const outcome = await migrateBook(db, book, legacyBookIds.has(bookIdKey(book._id)), settings, report.dryRun, write);
    legacyBookIds.delete(bookIdKey(book._id));
    recordOutcome(report, book._id, outcome);
    // A converted book got its words with its commit; a skipped one is left exactly as it was.
    const bounded = outcome.action === "none" || outcome.action === "remove-copied-legacy";
    if (bounded && (await setSearchWords(db, book, report.dryRun))) report.searchWordsSet += 1;
    options.onProgress?.(progressOf(report));
  }
  report.orphanLegacyDocuments = [...legacyBookIds.values()];
  return report;
}

/** The words the search index holds for a book (none when its title or author is not text). */
function storedWordsOf(book: StoredBook): string[] {
  return typeof book.title === "string" && typeof book.author === "string" ? searchWordsOf(book) : [];
}

/**
 * Sets a book's search words when they are missing or no longer those of its title and author, guarded
 * on both as read so that a concurrent rename is not overwritten with stale words. True when it set them
 * (or, in a dry run, would).
 */
async function setSearchWords(db: Db, book: StoredBook, dryRun: boolean): Promise<boolean> {
  const words = storedWordsOf(book);
  if (isDeepStrictEqual(book.search_words, words)) return false;
  if (dryRun) return true;
  const { matchedCount } = await books(db).updateOne(
    { _id: book._id, title: book.title, author: book.author },
    { $set: { search_words: words } },
  );
  return matchedCount === 1;
}

/** The plan that was carried out (or, in a dry run, would be). */
async function migrateBook(
  db: Db,
  first: StoredBook,
  mayHaveLegacy: boolean,
  settings: OutlierSettings,
  dryRun: boolean,
  write: Writer,
): Promise<BookPlan> {
  let book: StoredBook | null = first;
  for (let attempt = 1; book && attempt <= MAX_ATTEMPTS; attempt += 1) {
    const plan = planBookMigration(book, await readLegacyState(db, book, mayHaveLegacy), settings);
    if (dryRun || (await applyPlan(db, book, plan, write)) === "applied") return plan;
    book = await books(db).findOne({ _id: book._id });
  }
  return skip(
    book
      ? `it kept changing while being migrated (${MAX_ATTEMPTS} attempts); run the migration again`
      : "it was deleted while being migrated",
  );
}

function recordOutcome(report: MigrationReport, bookId: BookId, plan: BookPlan): void {
  report.booksChecked += 1;
  if (plan.action === "skip") report.needsAttention.push({ bookId: formatBookId(bookId), reason: plan.reason });
  if (plan.action === "convert") {
    report.booksConverted += 1;
    report.purchasesMoved += plan.moved;
  }
  if (plan.action === "convert" || plan.action === "remove-copied-legacy") report.legacyDocumentsRemoved += plan.legacy.length;
}

function progressOf({
  booksChecked,
  booksTotal,
  booksConverted,
  searchWordsSet,
  purchasesMoved,
  legacyDocumentsRemoved,
}: MigrationReport): MigrationProgress {
  return { booksChecked, booksTotal, booksConverted, searchWordsSet, purchasesMoved, legacyDocumentsRemoved };
}

type Writer = <T>(step: MigrationStep, run: () => Promise<T>) => Promise<T>;

function writer(beforeWrite: MigrationOptions["beforeWrite"]): Writer {
  return async (step, run) => {
    await beforeWrite?.(step);
    return run();
  };
}

/** "changed": a guard found the book or its legacy extra sales different from what was read, so the plan is stale. */
async function applyPlan(db: Db, book: StoredBook, plan: BookPlan, write: Writer): Promise<"applied" | "changed"> {
  if (plan.action === "convert") return convertBook(db, book, plan, write);
  if (plan.action === "remove-copied-legacy") return removeLegacy(db, plan.legacy, write);
  return "applied";
}

async function convertBook(
  db: Db,
  book: StoredBook,
  plan: Extract<BookPlan, { action: "convert" }>,
  write: Writer,
): Promise<"applied" | "changed"> {
  for (const legacy of plan.legacy) {
    const marked = await write({ kind: "mark-legacy", bookId: book._id }, () => markLegacy(db, legacy));
    if (!marked) return "changed";
  }
  for (const page of plan.target.pages) {
    await write({ kind: "write-page", bookId: book._id }, () =>
      extraSalesCollection(db).replaceOne({ book_id: page.book_id, page: page.page }, page, { upsert: true }),
    );
  }
  const { customers_purchased, has_extras, purchase_count, extra_page_size, search_words } = plan.target.book;
  const { matchedCount } = await write({ kind: "commit-book", bookId: book._id }, () =>
    books(db).updateOne(unchangedSince(book), {
      $set: { customers_purchased, has_extras, purchase_count, extra_page_size, search_words },
    }),
  );
  if (matchedCount === 0) return "changed";
  // A crash here leaves the legacy documents marked; the next run sees a bounded book and removes them.
  return removeLegacy(db, plan.legacy, write);
}

async function markLegacy(db: Db, { collection, document }: LegacyExtraSales): Promise<boolean> {
  const entries = legacyEntries(document) ?? [];
  const { matchedCount } = await legacyCollection(db, collection).updateOne(
    { _id: document._id, page: { $exists: false }, [legacyEntriesField(document)]: { $size: entries.length } },
    { $set: { migrated_entries: entries.length } },
  );
  return matchedCount === 1;
}

async function removeLegacy(db: Db, legacy: LegacyExtraSales[], write: Writer): Promise<"applied" | "changed"> {
  for (const { collection, document } of legacy) {
    const copied = document.migrated_entries ?? legacyEntries(document)?.length ?? 0;
    const { deletedCount } = await write({ kind: "remove-legacy", bookId: document.book_id }, () =>
      legacyCollection(db, collection).deleteOne({
        _id: document._id,
        migrated_entries: copied,
        [legacyEntriesField(document)]: { $size: copied },
      }),
    );
    if (deletedCount === 0) return "changed";
  }
  return "applied";
}

/**
 * Matches the book only while every field the commit replaces is as read. The API only appends to
 * the embedded array, so its length and last entry stand for the whole array.
 */
function unchangedSince(book: StoredBook): Filter<StoredBook> {
  const embedded = Array.isArray(book.customers_purchased) ? (book.customers_purchased as unknown[]) : undefined;
  return {
    _id: book._id,
    has_extras: stillHolds(book.has_extras),
    purchase_count: stillHolds(book.purchase_count),
    extra_page_size: stillHolds(book.extra_page_size),
    ...(embedded === undefined
      ? { customers_purchased: { $exists: false } }
      : {
          customers_purchased: { $size: embedded.length },
          ...(embedded.length > 0 ? { [`customers_purchased.${embedded.length - 1}`]: embedded.at(-1) } : {}),
        }),
  };
}

async function readLegacyState(db: Db, book: StoredBook, mayHaveLegacy: boolean): Promise<LegacyState> {
  const legacy = mayHaveLegacy ? await readLegacyExtraSales(db, book._id) : [];
  if (hasValidPageSize(book)) return { legacy, existingPages: [] };
  const pages = await extraSalesCollection(db)
    .find({ book_id: book._id, page: { $exists: true } }, { projection: { page: 1 } })
    .toArray();
  return { legacy, existingPages: pages.map(({ page }) => page) };
}

async function readLegacyExtraSales(db: Db, bookId: BookId): Promise<LegacyExtraSales[]> {
  const found: LegacyExtraSales[] = [];
  for (const collection of LEGACY_COLLECTIONS) {
    const documents = await legacyCollection(db, collection)
      .find({ book_id: bookId, ...legacyExtraSalesFilter(collection) })
      .toArray();
    found.push(...documents.map((document) => ({ collection, document })));
  }
  return found;
}

/**
 * The legacy sales_extras collection has no index of its own, so each book's lookup there would scan it
 * (and fail under mongod's notablescan): index it by book first. Even a dry run does, since an index
 * changes no document; a collection that does not exist is left alone.
 */
async function indexLegacyCollection(db: Db): Promise<void> {
  if ((await db.listCollections({ name: LEGACY_SALES_EXTRAS }, { nameOnly: true }).toArray()).length === 0) return;
  await legacyCollection(db, LEGACY_SALES_EXTRAS).createIndex({ book_id: 1 }, { name: "book_id_1" });
}

/** Books that have legacy extra-sales documents, keyed by `bookIdKey`, so that only they pay for the lookup. */
async function findLegacyBookIds(db: Db): Promise<Map<string, { collection: string; bookId: string }>> {
  const found = new Map<string, { collection: string; bookId: string }>();
  for (const collection of LEGACY_COLLECTIONS) {
    for await (const { book_id: id } of await findLegacyExtraSales<{ book_id: BookId }>(db, collection, { book_id: 1 })) {
      found.set(bookIdKey(id), { collection, bookId: formatBookId(id) });
    }
  }
  return found;
}

function books(db: Db): Collection<StoredBook> {
  return db.collection<StoredBook>(SALES);
}
