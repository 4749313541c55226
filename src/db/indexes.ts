import type { Db } from "mongodb";
import { extraSalesCollection } from "../sales/documents";

/**
 * Creates the indexes the pattern relies on; safe to run at every start-up, since creating an
 * index that already exists with the same options is a no-op.
 * `(book_id, page)` is unique so that two requests racing to open the same page cannot both succeed,
 * and it serves every overflow read, which always names a book and its pages.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  await extraSalesCollection(db).createIndex({ book_id: 1, page: 1 }, { unique: true, name: "book_id_1_page_1" });
}
