import type { Db } from "mongodb";
import type { OutlierSettings } from "../src/config";
import { extraSalesCollection, salesCollection, type BookId, type ExtraSalesDocument, type SalesDocument } from "../src/sales/documents";

/**
 * The outlier pattern's invariants for one book, plus exactly-once delivery of the purchases the
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
  return [...layoutViolations(book, pages, settings.outlierThreshold), ...deliveryViolations(book, pages, expectedCustomers)].map(
    (violation) => `book ${String(bookId)}: ${violation}`,
  );
}

function layoutViolations(book: SalesDocument, pages: ExtraSalesDocument[], threshold: number): string[] {
  const violations: string[] = [];
  const overflow = pages.reduce((total, page) => total + page.customers_purchased_extra.length, 0);
  const entries = book.customers_purchased.length + overflow;
  if (book.customers_purchased.length > threshold) violations.push(`embedded array holds ${book.customers_purchased.length} > ${threshold}`);
  if (book.has_extras !== overflow > 0) violations.push(`has_extras is ${book.has_extras} with ${overflow} overflow entries`);
  if (book.purchase_count !== entries) violations.push(`purchase_count ${book.purchase_count} but ${entries} entries stored`);
  pages.forEach((page, index) => {
    const size = page.customers_purchased_extra.length;
    if (page.page !== index) violations.push(`page numbers skip from ${index - 1} to ${page.page}`);
    if (page.count !== size) violations.push(`page ${page.page} says count ${page.count} but holds ${size}`);
    if (size > book.extra_page_size) violations.push(`page ${page.page} holds ${size} > ${book.extra_page_size}`);
    if (index < pages.length - 1 && size !== book.extra_page_size) violations.push(`page ${page.page} is not full but is not the last`);
  });
  return violations;
}

/** Every expected purchase stored exactly once and nothing else: compared as multisets, since concurrent writers set the order. */
function deliveryViolations(book: SalesDocument, pages: ExtraSalesDocument[], expected: readonly string[]): string[] {
  const stored = [...book.customers_purchased, ...pages.flatMap((page) => page.customers_purchased_extra)];
  const balance = new Map<string, number>();
  for (const customer of expected) balance.set(customer, (balance.get(customer) ?? 0) + 1);
  for (const customer of stored) balance.set(customer, (balance.get(customer) ?? 0) - 1);
  const wrong = [...balance].filter(([, missing]) => missing !== 0);
  const lost = wrong.filter(([, missing]) => missing > 0).length;
  const extra = wrong.filter(([, missing]) => missing < 0).length;
  const examples = wrong.slice(0, 3).map(([customer]) => customer).join(", ");
  return wrong.length === 0 ? [] : [`${lost} purchases lost and ${extra} doubled or unknown (e.g. ${examples})`];
}
