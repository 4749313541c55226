import type { BookId, SalesDocument } from "./documents";
import { pageSizeOf } from "./documents";
import { checkWindowSize } from "./books";

/** One purchase with its position in the book's purchase list, which never changes: the list only grows at its end. */
export interface PurchaseEntry {
  position: number;
  customerId: string;
}

export interface CustomersPage {
  entries: PurchaseEntry[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/**
 * Which purchases a page holds, per the Relay connection spec: the window between the `after` and
 * `before` positions (exclusive), then its first `first` or its last `last` purchases.
 */
export type CustomersPageRequest = { after: number | null; before: number | null } & ({ first: number } | { last: number });

/**
 * What to read from a book's overflow pages: entries [skip, skip + limit) of one page, or the last
 * `tail` entries of every page from `fromPage` on (for the newest purchases, whose last page the
 * possibly lagging `purchase_count` cannot name).
 */
export type OverflowWindow =
  { bookId: BookId; page: number; skip: number; limit: number } | { bookId: BookId; fromPage: number; tail: number };

/** Part of one overflow page: `customers` are its entries from index `offset` on; `length` is the whole page's. */
export interface PageSlice {
  page: number;
  offset: number;
  length: number;
  customers: string[];
}

export type OverflowLoader = (window: OverflowWindow) => Promise<PageSlice[]>;

/**
 * Reads one page of a book's purchases, across the embedded array and the overflow pages.
 *
 * Positions below the embedded array's length are embedded; the rest sit in pages of the book's
 * stored page size, all full but the last, so the pages a window needs follow from arithmetic and
 * only the window's entries are read from them. Only the newest page (`last` without `before`)
 * needs the list's true end: it reads the tails of the pages from where `purchase_count` points on,
 * so a count lagging behind an append in flight still finds the newest purchase.
 */
export async function retrieveCustomersPage(
  loadOverflow: OverflowLoader,
  book: SalesDocument,
  request: CustomersPageRequest,
): Promise<CustomersPage> {
  const windowStart = request.after === null ? 0 : request.after + 1;
  if ("first" in request) {
    checkWindowSize(request.first);
    return readForward(loadOverflow, book, windowStart, request.before, request.first);
  }
  checkWindowSize(request.last, "last");
  const { entries, windowEnd } =
    request.before === null
      ? await readNewest(loadOverflow, book, request.last)
      : {
          entries: await readPositions(loadOverflow, book, Math.max(windowStart, request.before - request.last), request.before),
          windowEnd: request.before,
        };
  const start = Math.max(windowStart, windowEnd - request.last);
  return {
    entries: entries.filter((entry) => entry.position >= start && entry.position < windowEnd),
    hasPreviousPage: start > windowStart,
    hasNextPage: request.before !== null,
  };
}

/** `first` purchases from `start`; the stored count answers "is there more?" when it can, else one entry past the window is read. */
async function readForward(
  loadOverflow: OverflowLoader,
  book: SalesDocument,
  start: number,
  before: number | null,
  first: number,
): Promise<CustomersPage> {
  const windowEnd = before ?? Number.POSITIVE_INFINITY;
  const end = Math.min(start + first, windowEnd);
  const countShowsMore = Math.min(book.purchase_count, windowEnd) > end;
  const readUntil = countShowsMore || end === windowEnd ? end : end + 1;
  const entries = await readPositions(loadOverflow, book, start, readUntil);
  return {
    entries: entries.slice(0, end - start),
    hasNextPage: countShowsMore || entries.length > end - start,
    hasPreviousPage: start > 0,
  };
}

/** The purchases at positions [start, end), or fewer where the list ends sooner. */
async function readPositions(loadOverflow: OverflowLoader, book: SalesDocument, start: number, end: number): Promise<PurchaseEntry[]> {
  const embedded = book.customers_purchased.slice(start, end).map((customerId, index) => ({ position: start + index, customerId }));
  if (!book.has_extras || end <= book.customers_purchased.length) return embedded;

  const pageSize = pageSizeOf(book);
  const from = Math.max(start - book.customers_purchased.length, 0);
  const to = end - book.customers_purchased.length;
  const windows = overflowPagesCovering(from, to, pageSize).map((page) => {
    const skip = Math.max(from - page * pageSize, 0);
    return { bookId: book._id, page, skip, limit: Math.min(to - page * pageSize, pageSize) - skip };
  });
  const slices = (await Promise.all(windows.map(loadOverflow))).map((found) => found[0]);
  const overflow: PurchaseEntry[] = [];
  for (const slice of slices) {
    if (!slice) break;
    overflow.push(...entriesOf(book, pageSize, slice));
    if (slice.length < pageSize) break;
  }
  return [...embedded, ...overflow];
}

/** The newest `last` purchases (or all, for a shorter list) and where the list ends. */
async function readNewest(
  loadOverflow: OverflowLoader,
  book: SalesDocument,
  last: number,
): Promise<{ entries: PurchaseEntry[]; windowEnd: number }> {
  const embeddedCount = book.customers_purchased.length;
  const embedded = (from: number) =>
    book.customers_purchased.slice(from).map((customerId, index) => ({ position: from + index, customerId }));
  if (!book.has_extras) return { entries: embedded(Math.max(embeddedCount - last, 0)), windowEnd: embeddedCount };

  const pageSize = pageSizeOf(book);
  const fromPage = Math.floor(Math.max(book.purchase_count - embeddedCount - last, 0) / pageSize);
  const slices = await loadOverflow({ bookId: book._id, fromPage, tail: last });
  const lastSlice = slices.at(-1);
  const windowEnd = lastSlice ? embeddedCount + lastSlice.page * pageSize + lastSlice.length : embeddedCount;
  const overflow = slices.flatMap((slice) => entriesOf(book, pageSize, slice));
  return { entries: [...embedded(Math.max(windowEnd - last, 0)), ...overflow], windowEnd };
}

function entriesOf(book: SalesDocument, pageSize: number, slice: PageSlice): PurchaseEntry[] {
  const first = book.customers_purchased.length + slice.page * pageSize + slice.offset;
  return slice.customers.map((customerId, index) => ({ position: first + index, customerId }));
}

/** Page numbers holding overflow offsets [from, to), given every page but the last is full. */
export function overflowPagesCovering(from: number, to: number, pageSize: number): number[] {
  if (to <= from) return [];
  const firstPage = Math.floor(from / pageSize);
  const lastPage = Math.floor((to - 1) / pageSize);
  return Array.from({ length: lastPage - firstPage + 1 }, (_, index) => firstPage + index);
}
