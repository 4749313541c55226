import { checkBook } from "../../src/maintenance/reconcile/checks";
import type { BookSummary, PageSummary } from "../../src/maintenance/reconcile/violations";

const settings = { outlierThreshold: 3 };
const book = (fields: Partial<BookSummary> = {}): BookSummary => ({
  _id: 7,
  embedded: 3,
  has_extras: true,
  purchase_count: 8,
  extra_page_size: 4,
  ...fields,
});
const page = (number: number, entries: number, count = entries): PageSummary => ({ book_id: 7, page: number, count, entries });
const kinds = (book: BookSummary, pages: PageSummary[]) => checkBook(book, pages, settings).map((violation) => violation.kind);

describe("checking one book's invariants", () => {
  it("finds nothing wrong with full pages and a partial last page", () => {
    expect(checkBook(book(), [page(0, 4), page(1, 1)], settings)).toEqual([]);
  });

  it("offers a repair guarded on the count and the embedded length it read", () => {
    const [violation] = checkBook(book({ purchase_count: 6 }), [page(0, 4), page(1, 1)], settings);
    expect(violation).toMatchObject({
      kind: "purchase-count",
      bookId: "7",
      numbers: { stored: 6, embedded: 3, overflow: 5, expected: 8 },
      repair: {
        collection: "sales",
        filter: { _id: 7, purchase_count: { $eq: 6 }, customers_purchased: { $size: 3 } },
        set: { purchase_count: 8 },
      },
    });
  });

  it("reports a count ahead of the stored purchases at error level, with no repair: purchases were lost", () => {
    const [violation] = checkBook(book({ purchase_count: 9 }), [page(0, 4), page(1, 1)], settings);
    expect(violation).toMatchObject({
      kind: "purchase-count-ahead",
      level: "error",
      numbers: { stored: 9, embedded: 3, overflow: 5, expected: 8 },
    });
    expect(violation!.repair).toBeUndefined();
  });

  it("reports a page whose count differs from its entries, and a page past the page size", () => {
    expect(kinds(book({ purchase_count: 9 }), [page(0, 4, 3), page(1, 2)])).toEqual(["page-count"]);
    expect(kinds(book({ purchase_count: 9 }), [page(0, 5), page(1, 1)])).toEqual(["page-over-size"]);
  });

  it("reports gaps in page numbers and pages not full before the last", () => {
    expect(kinds(book(), [page(0, 4), page(2, 1)])).toEqual(["page-gap"]);
    expect(kinds(book({ purchase_count: 7 }), [page(0, 3), page(1, 1)])).toEqual(["page-not-full"]);
  });

  it("repairs a flag that says less than the data, never one that may announce a purchase being recorded", () => {
    const [missing] = checkBook(book({ has_extras: undefined }), [page(0, 4), page(1, 1)], settings);
    expect(missing).toMatchObject({
      kind: "has-extras",
      repair: { filter: { has_extras: { $exists: false } }, set: { has_extras: true } },
    });

    const [early] = checkBook(book({ purchase_count: 3 }), [], settings);
    expect(early).toMatchObject({ kind: "has-extras", numbers: { stored: true, overflow: 0 } });
    expect(early!.repair).toBeUndefined();
  });

  it("sends books without a page size to the migration instead of checking them", () => {
    expect(checkBook(book({ extra_page_size: undefined, embedded: 80 }), [], settings)).toEqual([
      expect.objectContaining({ kind: "not-migrated", numbers: { extraPageSize: null } }),
    ]);
  });

  it("reports an embedded array over the threshold", () => {
    expect(checkBook(book({ embedded: 5, has_extras: false, purchase_count: 5 }), [], settings)).toEqual([
      expect.objectContaining({ kind: "embedded-over-threshold", numbers: { embedded: 5, threshold: 3 } }),
    ]);
  });
});
