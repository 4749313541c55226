import type { OutlierSettings } from "../config";
import type { BookId, ExtraSalesDocument, BookDocument } from "../sales/documents";

export interface LaidOutBook {
  book: BookDocument;
  pages: ExtraSalesDocument[];
}

/**
 * The documents that recording `customers` one by one through `recordPurchase` would leave,
 * computed in memory, so that bulk loads need no round trip per purchase.
 * Page fields are in the order mongod 5+ creates them on upsert (lexicographic).
 */
export function layOutPurchases(
  emptyBook: BookDocument,
  customers: readonly string[],
  settings: Pick<OutlierSettings, "outlierThreshold">,
): LaidOutBook {
  const threshold = settings.outlierThreshold;
  const extraSales = customers.slice(threshold);
  const pages = paginateExtraSales(emptyBook._id, extraSales, emptyBook.extra_page_size);
  return {
    book: {
      ...emptyBook,
      customers_purchased: customers.slice(0, threshold),
      has_extras: extraSales.length > 0,
      purchase_count: customers.length,
    },
    pages,
  };
}

/** A book's extra sales, in order, as the full pages (and one last, possibly partial page) recordPurchase fills. */
export function paginateExtraSales(bookId: BookId, extraSales: readonly string[], pageSize: number): ExtraSalesDocument[] {
  const pages: ExtraSalesDocument[] = [];
  for (let start = 0; start < extraSales.length; start += pageSize) {
    const entries = extraSales.slice(start, start + pageSize);
    pages.push({ book_id: bookId, page: start / pageSize, count: entries.length, customers_purchased_extra: entries });
  }
  return pages;
}
