import type { Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { extraSalesCollection, salesCollection } from "../sales/documents";
import { emptySalesDocument, type NewBook } from "../sales/books";
import { layOutPurchases, type LaidOutBook } from "./layout";
import type { BookId } from "../sales/documents";

export interface BookWithPurchases {
  book: NewBook & { id: BookId };
  /** Customer ids in purchase order. */
  customers: readonly string[];
}

export interface BulkProgress {
  books: number;
  purchases: number;
}

// Keeps each insertMany well under the 48 MB message limit even for books with many full pages.
const BATCH_DOCUMENTS = 500;

/**
 * Writes books with their purchases already laid out as `recordPurchase` would have left them,
 * a batch of documents per round trip instead of several round trips per purchase.
 * For loading new data only: it inserts, so existing ids fail with a duplicate key.
 */
export async function insertBooksWithPurchases(
  db: Db,
  books: Iterable<BookWithPurchases>,
  settings: OutlierSettings,
  onProgress: (progress: BulkProgress) => void = () => {},
): Promise<BulkProgress> {
  const progress: BulkProgress = { books: 0, purchases: 0 };
  let batch: LaidOutBook[] = [];
  const flush = async () => {
    await insertLaidOut(db, batch);
    for (const { book } of batch) {
      progress.books += 1;
      progress.purchases += book.purchase_count;
    }
    batch = [];
    onProgress({ ...progress });
  };
  for (const { book, customers } of books) {
    batch.push(layOutPurchases(emptySalesDocument(book, settings), customers, settings));
    if (batch.length >= BATCH_DOCUMENTS) await flush();
  }
  if (batch.length > 0) await flush();
  return progress;
}

async function insertLaidOut(db: Db, batch: LaidOutBook[]): Promise<void> {
  const pages = batch.flatMap(({ pages }) => pages);
  // Pages first: a reader who finds a book flagged must also find its pages.
  for (let start = 0; start < pages.length; start += BATCH_DOCUMENTS) {
    await extraSalesCollection(db).insertMany(pages.slice(start, start + BATCH_DOCUMENTS));
  }
  await salesCollection(db).insertMany(batch.map(({ book }) => book));
}
