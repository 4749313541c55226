import type { Db } from "mongodb";
import { extraSalesCollection, salesCollection, type BookId } from "../../src/sales/documents";

/**
 * The two baselines of the seed chapter, written here and nowhere in the product:
 * an unbounded embedded array, and a read path that loads a book's whole extra sales.
 */

export interface UnboundedBook {
  _id: BookId;
  title: string;
  customers_purchased: string[];
}

const UNBOUNDED_SALES = "bench_unbounded_sales";

function unboundedCollection(db: Db) {
  return db.collection<UnboundedBook>(UNBOUNDED_SALES);
}

export async function seedUnboundedBook(db: Db, id: BookId, customers: readonly string[]): Promise<void> {
  await unboundedCollection(db).insertOne({ _id: id, title: `Unbounded ${String(id)}`, customers_purchased: [...customers] });
}

/** Baseline (a): one plain `$push`; the array grows with every purchase, and so does the document. */
export async function pushUnbounded(db: Db, id: BookId, customer: string): Promise<void> {
  await unboundedCollection(db).updateOne({ _id: id }, { $push: { customers_purchased: customer } });
}

export async function findUnboundedBook(db: Db, id: BookId): Promise<UnboundedBook | null> {
  return unboundedCollection(db).findOne({ _id: id });
}

/** A window of a book's buyers, whichever path read it. */
export interface WindowOfCustomers {
  customers: string[];
  hasNextPage: boolean;
}

/**
 * The chapter's read path over this project's documents: a window inside the embedded array reads
 * the book alone; any other window loads every extra_sales page of the book, concatenates, and slices.
 */
export async function readWindowAsChapter(db: Db, bookId: BookId, start: number, first: number): Promise<WindowOfCustomers> {
  const book = await salesCollection(db).findOne({ _id: bookId }, { projection: { customers_purchased: 1, has_extras: 1 } });
  const embedded = book?.customers_purchased ?? [];
  if (!book?.has_extras || start + first <= embedded.length) {
    return { customers: embedded.slice(start, start + first), hasNextPage: start + first < embedded.length || Boolean(book?.has_extras) };
  }
  const pages = await extraSalesCollection(db).find({ book_id: bookId }).sort({ page: 1 }).toArray();
  const all = embedded.concat(...pages.map((page) => page.customers_purchased_extra));
  return { customers: all.slice(start, start + first), hasNextPage: start + first < all.length };
}
