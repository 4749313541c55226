import { pageSizeOf, type ExtraSalesDocument, type SalesDocument } from "./documents";
import type { PageKey } from "./loaders";
import { checkPageSize } from "./books";

/** One purchase with its position in the book's purchase list, which never changes: the list only grows at its end. */
export interface PurchaseEntry {
  position: number;
  customerId: string;
}

export interface CustomersPage {
  entries: PurchaseEntry[];
  hasNextPage: boolean;
}

export type PageLoader = (key: PageKey) => Promise<ExtraSalesDocument | null>;

/**
 * Reads `first` purchases from position `start` on, across the embedded array and the overflow pages.
 *
 * Positions below the embedded array's length are embedded; the rest sit in pages of the book's
 * stored page size, all full but the last, so the pages a window needs follow from arithmetic and
 * nothing outside the window is read. The stored count answers "is there more?" when it can;
 * only when it cannot is one entry past the window read.
 */
export async function retrieveCustomersPage(
  loadPage: PageLoader,
  book: SalesDocument,
  start: number,
  first: number,
): Promise<CustomersPage> {
  checkPageSize(first);
  const end = start + first;
  const countShowsMore = book.purchase_count > end;
  const readUntil = countShowsMore ? end : end + 1;

  const customers = book.customers_purchased.slice(start, readUntil);
  if (book.has_extras && readUntil > book.customers_purchased.length) {
    customers.push(...(await readOverflow(loadPage, book, start, readUntil)));
  }
  return {
    entries: customers.slice(0, first).map((customerId, index) => ({ position: start + index, customerId })),
    hasNextPage: countShowsMore || customers.length > first,
  };
}

/** Overflow customers at list positions [start, end), read from only the pages that hold them. */
async function readOverflow(loadPage: PageLoader, book: SalesDocument, start: number, end: number): Promise<string[]> {
  const pageSize = pageSizeOf(book);
  const from = Math.max(start - book.customers_purchased.length, 0);
  const to = end - book.customers_purchased.length;
  const pageNumbers = overflowPagesCovering(from, to, pageSize);
  const pages = await Promise.all(pageNumbers.map((page) => loadPage({ bookId: book._id, page })));

  const customers: string[] = [];
  for (const [index, page] of pages.entries()) {
    if (!page) break;
    const pageStart = (pageNumbers[0]! + index) * pageSize;
    customers.push(...page.customers_purchased_extra.slice(Math.max(from - pageStart, 0), to - pageStart));
    if (page.customers_purchased_extra.length < pageSize) break;
  }
  return customers;
}

/** Page numbers holding overflow offsets [from, to), given every page but the last is full. */
export function overflowPagesCovering(from: number, to: number, pageSize: number): number[] {
  if (to <= from) return [];
  const firstPage = Math.floor(from / pageSize);
  const lastPage = Math.floor((to - 1) / pageSize);
  return Array.from({ length: lastPage - firstPage + 1 }, (_, index) => firstPage + index);
}
