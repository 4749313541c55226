import type { Db } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { extraSalesCollection, salesCollection, type BookId, type ExtraSalesDocument, type BookDocument } from "../../src/sales/documents";
import { findBookViolations } from "../../src/maintenance/reconcile/scan";

/**
 * The outlier pattern's invariants for one book (reconcile's checks), plus exactly-once delivery of the purchases the
 * bench knows it recorded, as a list of what is broken (empty when all holds).
 */
export async function bookViolations(
  db: Db,
  bookId: BookId,
  expectedCustomers: readonly string[],
  settings: Pick<OutlierSettings, "outlierThreshold">,
): Promise<string[]> {
  const book = await salesCollection(db).findOne({ _id: bookId });
  if (!book) return [`book ${String(bookId)} is missing`];
  const pages = await extraSalesCollection(db).find({ book_id: bookId }).sort({ page: 1 }).toArray();
  const layout = (await findBookViolations(db, bookId, settings)).map((violation) => violation.message);
  return [...layout, ...deliveryViolations(book, pages, expectedCustomers)].map((violation) => `book ${String(bookId)}: ${violation}`);
}

/** Every expected purchase stored exactly once and nothing else: compared as multisets, since concurrent writers set the order. */
function deliveryViolations(book: BookDocument, pages: ExtraSalesDocument[], expected: readonly string[]): string[] {
  const stored = [...book.customers_purchased, ...pages.flatMap((page) => page.customers_purchased_extra)];
  const balance = new Map<string, number>();
  for (const customer of expected) balance.set(customer, (balance.get(customer) ?? 0) + 1);
  for (const customer of stored) balance.set(customer, (balance.get(customer) ?? 0) - 1);
  const wrong = [...balance].filter(([, missing]) => missing !== 0);
  const lost = wrong.filter(([, missing]) => missing > 0).length;
  const extra = wrong.filter(([, missing]) => missing < 0).length;
  const examples = wrong
    .slice(0, 3)
    .map(([customer]) => customer)
    .join(", ");
  return wrong.length === 0 ? [] : [`${lost} purchases lost and ${extra} doubled or unknown (e.g. ${examples})`];
}
