import type { Db } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import type { BookId } from "../../src/sales/documents";

/**
 * Customer ids of one fixed length, so that byte counts compare books by their layout alone,
 * and so that the bench knows exactly which customer sits at which position.
 */
export function customerId(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(7, "0")}`;
}

export function customerIds(prefix: string, count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, index) => customerId(prefix, from + index));
}

/**
 * A book holding `customers` as purchases, laid out exactly as `recordPurchase` would have left it.
 * Every bench book has the same title, so that books differ in bytes only by their ids and layout.
 */
export async function seedBook(db: Db, id: BookId, customers: readonly string[], settings: OutlierSettings): Promise<void> {
  await insertBooksWithPurchases(db, [{ book: { id, title: "Bench book", author: "Bench" }, customers }], settings);
}
