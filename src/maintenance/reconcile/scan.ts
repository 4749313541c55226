import type { Db, Document } from "mongodb";
import type { OutlierSettings } from "../../config";
import { indexLabel } from "../../db/indexes";
import { bookIdKey, formatBookId } from "../../sales/book-ids";
import { extraSalesCollection, hasValidPageSize, salesCollection, type BookId } from "../../sales/documents";
import { findMissingSalesIndexes, UNIQUE_PAGE_INDEX } from "../../sales/indexes";
import { findLegacyExtraSales, LEGACY_COLLECTIONS } from "../legacy-extra-sales";
import { interruptedRelayouts } from "../page-relayout";
import { checkBook, legacyExtraSalesDocument, orphanPage } from "./checks";
import type { BookSummary, PageSummary, Violation } from "./violations";

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
  violations.push(...[...pagesByBook.values()].flat().map(orphanPage), ...(await legacyExtraSalesViolations(db)));
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

async function legacyExtraSalesViolations(db: Db): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const collection of LEGACY_COLLECTIONS) {
    const documents = await (await findLegacyExtraSales<{ book_id: BookId }>(db, collection, { book_id: 1 })).toArray();
    violations.push(...documents.map(({ book_id }) => legacyExtraSalesDocument(book_id, collection)));
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
