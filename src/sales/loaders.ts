import DataLoader from "dataloader";
import type { Db } from "mongodb";
import { extraSalesCollection, type BookId, type ExtraSalesDocument, type SalesDocument } from "./documents";
import { bookIdKey } from "./book-ids";
import { retrieveBooksByIds } from "./books";

export interface PageKey {
  bookId: BookId;
  page: number;
}

/** Per-request batching and caching: every read of one kind within a tick becomes one query. */
export interface SalesLoaders {
  book: DataLoader<BookId, SalesDocument | null, string>;
  extraSalesPage: DataLoader<PageKey, ExtraSalesDocument | null, string>;
}

function pageKey({ bookId, page }: PageKey): string {
  return `${bookIdKey(bookId)}#${page}`;
}

/** `batch: false` exists for the benchmark that shows what batching saves; the API always batches. */
export function createSalesLoaders(db: Db, { batch = true }: { batch?: boolean } = {}): SalesLoaders {
  return {
    book: new DataLoader((ids) => loadBooks(db, ids), { cacheKeyFn: bookIdKey, batch }),
    extraSalesPage: new DataLoader((keys) => loadExtraSalesPages(db, keys), { cacheKeyFn: pageKey, batch }),
  };
}

async function loadBooks(db: Db, ids: readonly BookId[]): Promise<(SalesDocument | null)[]> {
  const found = new Map((await retrieveBooksByIds(db, ids)).map((book) => [bookIdKey(book._id), book]));
  return ids.map((id) => found.get(bookIdKey(id)) ?? null);
}

/** One query for every page asked for in this tick, grouped by book so the `(book_id, page)` index serves each branch. */
async function loadExtraSalesPages(db: Db, keys: readonly PageKey[]): Promise<(ExtraSalesDocument | null)[]> {
  const pagesByBook = new Map<string, { bookId: BookId; pages: number[] }>();
  for (const { bookId, page } of keys) {
    const entry = pagesByBook.get(bookIdKey(bookId)) ?? { bookId, pages: [] };
    entry.pages.push(page);
    pagesByBook.set(bookIdKey(bookId), entry);
  }
  const branches = [...pagesByBook.values()].map(({ bookId, pages }) => ({ book_id: bookId, page: { $in: pages } }));
  const documents = await extraSalesCollection(db)
    .find({ $or: branches }, { projection: { _id: 0 } })
    .toArray();
  const found = new Map(documents.map((document) => [pageKey({ bookId: document.book_id, page: document.page }), document]));
  return keys.map((key) => found.get(pageKey(key)) ?? null);
}
