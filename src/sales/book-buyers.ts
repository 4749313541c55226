import type { BookId, BookDocument } from "./documents";
import { pageSizeOf } from "./documents";
import { checkWindowSize } from "./books";

/** A buyer with the position of the purchase in the book's list of purchases, which never changes: the list only grows at its end. */
export interface Buyer {
  position: number;
  customerId: string;
}

export interface BuyersWindow {
  buyers: Buyer[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/**
 * Which purchases a window holds, per the Relay connection spec: those between the `after` and
 * `before` positions (exclusive), then the first `first` or the last `last` of them.
 */
export type BuyersWindowRequest = { after: number | null; before: number | null } & ({ first: number } | { last: number });

/**
 * What to read from a book's extra_sales pages: entries [skip, skip + limit) of one page, or the last
 * `tail` entries of every page from `fromPage` on (for the newest purchases, whose last page the
 * possibly lagging `purchase_count` cannot name).
 */
export type ExtraSalesWindow =
  { bookId: BookId; page: number; skip: number; limit: number } | { bookId: BookId; fromPage: number; tail: number };

/** Part of one extra_sales page: `customers` are its entries from index `offset` on; `length` is the whole page's. */
export interface PageSlice {
  page: number;
  offset: number;
  length: number;
  customers: string[];
}

export type ExtraSalesLoader = (window: ExtraSalesWindow) => Promise<PageSlice[]>;

/**
 * Reads one window of a book's purchases, across the embedded array and the extra_sales pages.
 *
 * Positions below the embedded array's length are embedded; the rest sit in pages of the book's
 * stored page size, all full but the last, so the pages a window needs follow from arithmetic and
 * only the window's entries are read from them. Only the newest window (`last` without `before`)
 * needs the list's true end: it reads the tails of the pages from where `purchase_count` points on,
 * so a count lagging behind an append in flight still finds the newest purchase.
 */
export async function retrieveBuyersWindow(
  loadExtraSales: ExtraSalesLoader,
  book: BookDocument,
  request: BuyersWindowRequest,
): Promise<BuyersWindow> {
  const windowStart = request.after === null ? 0 : request.after + 1;
  if ("first" in request) {
    checkWindowSize(request.first);
    return readForward(loadExtraSales, book, windowStart, request.before, request.first);
  }
  checkWindowSize(request.last, "last");
  const { buyers, windowEnd } =
    request.before === null
      ? await readNewest(loadExtraSales, book, request.last)
      : {
          buyers: await readPositions(loadExtraSales, book, Math.max(windowStart, request.before - request.last), request.before),
          windowEnd: request.before,
        };
  const start = Math.max(windowStart, windowEnd - request.last);
  return {
    buyers: buyers.filter((buyer) => buyer.position >= start && buyer.position < windowEnd),
    hasPreviousPage: start > windowStart,
    hasNextPage: request.before !== null,
  };
}

/** `first` purchases from `start`; the stored count answers "is there more?" when it can, else one entry past the window is read. */
async function readForward(
  loadExtraSales: ExtraSalesLoader,
  book: BookDocument,
  start: number,
  before: number | null,
  first: number,
): Promise<BuyersWindow> {
  const windowEnd = before ?? Number.POSITIVE_INFINITY;
  const end = Math.min(start + first, windowEnd);
  const countShowsMore = Math.min(book.purchase_count, windowEnd) > end;
  const readUntil = countShowsMore || end === windowEnd ? end : end + 1;
  const buyers = await readPositions(loadExtraSales, book, start, readUntil);
  return {
    buyers: buyers.slice(0, end - start),
    hasNextPage: countShowsMore || buyers.length > end - start,
    hasPreviousPage: start > 0,
  };
}

/** The purchases at positions [start, end), or fewer where the list ends sooner. */
async function readPositions(loadExtraSales: ExtraSalesLoader, book: BookDocument, start: number, end: number): Promise<Buyer[]> {
  const embedded = book.customers_purchased.slice(start, end).map((customerId, index) => ({ position: start + index, customerId }));
  if (!book.has_extras || end <= book.customers_purchased.length) return embedded;

  const pageSize = pageSizeOf(book);
  const from = Math.max(start - book.customers_purchased.length, 0);
  const to = end - book.customers_purchased.length;
  const windows = extraSalesPagesCovering(from, to, pageSize).map((page) => {
    const skip = Math.max(from - page * pageSize, 0);
    return { bookId: book._id, page, skip, limit: Math.min(to - page * pageSize, pageSize) - skip };
  });
  const slices = (await Promise.all(windows.map(loadExtraSales))).map((found) => found[0]);
  const extraSales: Buyer[] = [];
  for (const slice of slices) {
    if (!slice) break;
    extraSales.push(...buyersOn(book, pageSize, slice));
    if (slice.length < pageSize) break;
  }
  return [...embedded, ...extraSales];
}

/** The newest `last` purchases (or all, for a shorter list) and where the list ends. */
async function readNewest(
  loadExtraSales: ExtraSalesLoader,
  book: BookDocument,
  last: number,
): Promise<{ buyers: Buyer[]; windowEnd: number }> {
  const embeddedCount = book.customers_purchased.length;
  const embedded = (from: number) =>
    book.customers_purchased.slice(from).map((customerId, index) => ({ position: from + index, customerId }));
  if (!book.has_extras) return { buyers: embedded(Math.max(embeddedCount - last, 0)), windowEnd: embeddedCount };

  const pageSize = pageSizeOf(book);
  const fromPage = Math.floor(Math.max(book.purchase_count - embeddedCount - last, 0) / pageSize);
  const slices = await loadExtraSales({ bookId: book._id, fromPage, tail: last });
  const lastSlice = slices.at(-1);
  const windowEnd = lastSlice ? embeddedCount + lastSlice.page * pageSize + lastSlice.length : embeddedCount;
  const extraSales = slices.flatMap((slice) => buyersOn(book, pageSize, slice));
  return { buyers: [...embedded(Math.max(windowEnd - last, 0)), ...extraSales], windowEnd };
}

function buyersOn(book: BookDocument, pageSize: number, slice: PageSlice): Buyer[] {
  const first = book.customers_purchased.length + slice.page * pageSize + slice.offset;
  return slice.customers.map((customerId, index) => ({ position: first + index, customerId }));
}

/** Page numbers holding extra-sales offsets [from, to), given every page but the last is full. */
export function extraSalesPagesCovering(from: number, to: number, pageSize: number): number[] {
  if (to <= from) return [];
  const firstPage = Math.floor(from / pageSize);
  const lastPage = Math.floor((to - 1) / pageSize);
  return Array.from({ length: lastPage - firstPage + 1 }, (_, index) => firstPage + index);
}
