import type { OutlierSettings } from "../../config";
import { formatBookId } from "../../sales/book-ids";
import { EXTRA_SALES, SALES, hasValidPageSize, type BookId } from "../../sales/documents";
import { stillHolds } from "../guards";
import type { BookSummary, PageSummary, Violation } from "./violations";

export function legacyExtraSalesDocument(bookId: BookId, collection: string): Violation {
  return {
    kind: "legacy-overflow",
    bookId: formatBookId(bookId),
    message: `a legacy extra-sales document without a page number in ${collection}: run \`npm run migrate\``,
    numbers: { collection },
  };
}

export function orphanPage(page: PageSummary): Violation {
  return {
    kind: "orphan-page",
    bookId: formatBookId(page.book_id),
    message: `extra_sales page ${String(page.page)} (${page.entries} purchases) belongs to no book; left in place`,
    numbers: { page: String(page.page), entries: page.entries },
  };
}

/** The invariants of one book and its pages (sorted by page number); pure. */
export function checkBook(book: BookSummary, pages: PageSummary[], settings: Pick<OutlierSettings, "outlierThreshold">): Violation[] {
  const bookId = formatBookId(book._id);
  if (!hasValidPageSize(book) || book.embedded === null) {
    return [
      {
        kind: "not-migrated",
        bookId,
        message: "not in the bounded form (no valid extra_page_size or no embedded array): run `npm run migrate`",
        numbers: { extraPageSize: countValue(book.extra_page_size) },
      },
    ];
  }
  const pageSize = book.extra_page_size as number;
  const extraSales = pages.reduce((sum, page) => sum + page.entries, 0);
  const duplicates = duplicatePages(book, bookId, pages, pageSize);
  return [
    ...checkEmbedded(bookId, book.embedded, settings.outlierThreshold),
    // Pages sharing a number would each be reported as gaps and partial pages: the relayout repairs them all at once.
    ...(duplicates.length > 0
      ? duplicates
      : pages.flatMap((page, index) => checkPage(bookId, page, index, pageSize, index === pages.length - 1))),
    ...checkCount(book, bookId, book.embedded, extraSales),
    ...checkFlag(book, bookId, extraSales),
  ];
}

/** Pages sharing a number, as racing purchases leave them while the unique page index is missing. */
function duplicatePages(book: BookSummary, bookId: string, pages: PageSummary[], pageSize: number): Violation[] {
  const numbers = pages.map((page) => String(page.page));
  const duplicated = numbers.filter((number, index) => numbers.indexOf(number) !== index);
  if (duplicated.length === 0) return [];
  return [
    {
      kind: "duplicate-pages",
      bookId,
      message: `${duplicated.length} extra_sales documents repeat a page number (${[...new Set(duplicated)].join(", ")}), so readers miss their purchases; --fix rewrites the pages, keeping every purchase`,
      numbers: { documents: pages.length, duplicates: duplicated.length },
      repair: { relayout: book._id, pageSize },
    },
  ];
}

function checkEmbedded(bookId: string, embedded: number, threshold: number): Violation[] {
  if (embedded <= threshold) return [];
  return [
    {
      kind: "embedded-over-threshold",
      bookId,
      message: `embeds ${embedded} purchases, over the threshold of ${threshold}`,
      numbers: { embedded, threshold },
    },
  ];
}

function checkPage(bookId: string, page: PageSummary, index: number, pageSize: number, last: boolean): Violation[] {
  const numbers = { page: String(page.page), entries: page.entries };
  const found: Violation[] = [];
  if (page.page !== index) {
    found.push({
      kind: "page-gap",
      bookId,
      message: `page number ${String(page.page)} where page ${index} belongs`,
      numbers: { ...numbers, expected: index },
    });
  }
  if (page.count !== page.entries) {
    found.push({
      kind: "page-count",
      bookId,
      message: `page ${String(page.page)} has count ${String(page.count)} but holds ${page.entries} purchases`,
      numbers: { ...numbers, count: countValue(page.count) },
      repair: {
        collection: EXTRA_SALES,
        filter: {
          book_id: page.book_id,
          page: page.page,
          count: stillHolds(page.count),
          customers_purchased_extra: { $size: page.entries },
        },
        set: { count: page.entries },
      },
    });
  }
  if (page.entries > pageSize) {
    found.push({
      kind: "page-over-size",
      bookId,
      message: `page ${String(page.page)} holds ${page.entries} purchases, over the page size of ${pageSize}`,
      numbers: { ...numbers, pageSize },
    });
  } else if (!last && page.entries < pageSize) {
    found.push({
      kind: "page-not-full",
      bookId,
      message: `page ${String(page.page)} holds ${page.entries} of ${pageSize} purchases but is not the last page`,
      numbers: { ...numbers, pageSize },
    });
  }
  return found;
}

/**
 * The count may lag behind the entries while a purchase is in flight, or one was cut off before its count
 * (it is incremented last): repaired with an update guarded on the count and embedded length read (see the
 * docs/operations/tools.md on running it live). A count ahead of the entries is never a purchase in flight: acknowledged
 * purchases are missing (or were counted twice). Lowering it would hide that, so it is reported at error
 * level and left for a person to decide.
 */
function checkCount(book: BookSummary, bookId: string, embedded: number, extraSales: number): Violation[] {
  const expected = embedded + extraSales;
  if (book.purchase_count === expected) return [];
  const numbers = { stored: countValue(book.purchase_count), embedded, overflow: extraSales, expected };
  const holds = `${embedded} embedded + ${extraSales} extra sales = ${expected} purchases`;
  if (typeof book.purchase_count === "number" && book.purchase_count > expected) {
    return [
      {
        kind: "purchase-count-ahead",
        level: "error",
        bookId,
        message:
          `purchase_count is ${book.purchase_count} but it holds only ${holds}: ${book.purchase_count - expected} counted ` +
          "purchases are not stored (lost, or counted twice); --fix leaves the count for a person to decide, since lowering it would hide the loss",
        numbers,
      },
    ];
  }
  return [
    {
      kind: "purchase-count",
      bookId,
      message: `purchase_count is ${String(book.purchase_count)} but it holds ${holds} (a purchase in flight, or cut off before its count)`,
      numbers,
      repair: {
        collection: SALES,
        filter: { _id: book._id, purchase_count: stillHolds(book.purchase_count), customers_purchased: { $size: embedded } },
        set: { purchase_count: expected },
      },
    },
  ];
}

/**
 * A flag set without extra sales is the moment between recordPurchase's steps 2 and 3; unsetting it
 * could hide the purchase about to land, so only flags that say less than the data are repaired.
 */
function checkFlag(book: BookSummary, bookId: string, extraSales: number): Violation[] {
  const expected = extraSales > 0;
  if (book.has_extras === expected) return [];
  const unsafe = book.has_extras === true;
  return [
    {
      kind: "has-extras",
      bookId,
      message:
        `has_extras is ${JSON.stringify(book.has_extras) ?? "missing"} with ${extraSales} extra sales` +
        (unsafe ? "; left set, since a purchase may be landing in extra_sales" : ""),
      numbers: { stored: flagValue(book.has_extras), overflow: extraSales },
      ...(unsafe
        ? {}
        : {
            repair: {
              collection: SALES,
              filter: { _id: book._id, has_extras: stillHolds(book.has_extras) },
              set: { has_extras: expected },
            },
          }),
    },
  ];
}

function countValue(value: unknown): number | string | null {
  return typeof value === "number" ? value : value === undefined ? null : String(value);
}

function flagValue(value: unknown): boolean | string | null {
  return typeof value === "boolean" ? value : value === undefined ? null : String(value);
}
