import type { Db } from "mongodb";
import { extraSalesCollection, salesCollection } from "../sales/documents";
import { purchaseRequestsCollection } from "../sales/purchase-requests";

/**
 * Creates the indexes the pattern relies on; safe to run at every start-up, since creating an
 * index that already exists with the same options is a no-op.
 * `(book_id, page)` is unique so that two requests racing to open the same page cannot both succeed,
 * and it serves every overflow read, which always names a book and its pages.
 * `has_extras` is indexed so that counting outliers (every metrics scrape, salesStats) reads the few
 * flagged books, not the catalog; the flag changes once per book, so the index adds nothing to the cost of a purchase.
 * `purchase_requests` expires each claim at its own `expires_at` (expireAfterSeconds 0), so a changed
 * PURCHASE_ID_LIFETIME_HOURS applies to new claims without ever changing the index (which would need collMod).
 */
export async function ensureIndexes(db: Db): Promise<void> {
  await extraSalesCollection(db).createIndex({ book_id: 1, page: 1 }, { unique: true, name: "book_id_1_page_1" });
  await salesCollection(db).createIndex({ has_extras: 1 }, { name: "has_extras_1" });
  await purchaseRequestsCollection(db).createIndex({ expires_at: 1 }, { expireAfterSeconds: 0, name: "expires_at_1" });
}
