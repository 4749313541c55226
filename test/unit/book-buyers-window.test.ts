import { emptySalesDocument } from "../../src/sales/books";
import {
  extraSalesPagesCovering,
  retrieveBuyersWindow,
  type BuyersWindowRequest,
  type ExtraSalesLoader,
} from "../../src/sales/book-buyers";
import type { BookDocument } from "../../src/sales/documents";
import { layOutPurchases } from "../../src/maintenance/layout";

const customers = (count: number) => Array.from({ length: count }, (_, index) => `c${index}`);

/**
 * A book laid out in memory, with an extra-sales loader that slices its pages as the aggregation does
 * and records which pages were asked for, and how many entries it shipped.
 */
function bookWith(purchases: number, threshold = 3, pageSize = 4) {
  const empty = emptySalesDocument({ id: 7, title: "T", author: "A" }, { extraSalesPageSize: pageSize });
  const { book, pages } = layOutPurchases(empty, customers(purchases), { outlierThreshold: threshold });
  const requested: number[] = [];
  let shipped = 0;
  const loadPage: ExtraSalesLoader = async (window) => {
    const covered = pages.filter(({ page }) => ("page" in window ? page === window.page : page >= window.fromPage));
    requested.push(...covered.map(({ page }) => page));
    return covered.map(({ page, customers_purchased_extra: all }) => {
      const offset = "page" in window ? window.skip : Math.max(all.length - window.tail, 0);
      const slice = "page" in window ? all.slice(window.skip, window.skip + window.limit) : all.slice(offset);
      shipped += slice.length;
      return { page, offset, length: all.length, customers: slice };
    });
  };
  return { book, loadPage, requested, shipped: () => shipped };
}

/** `first` purchases from position `start`, as `first`/`after` ask for them. */
const forward = (start: number, first: number): BuyersWindowRequest => ({ after: start === 0 ? null : start - 1, before: null, first });
const ids = (page: { buyers: { customerId: string }[] }) => page.buyers.map((buyer) => buyer.customerId);

describe("reading a window of a book's buyers", () => {
  it("reads a window inside the embedded array without loading any page", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const page = await retrieveBuyersWindow(loadPage, book, forward(0, 2));
    expect(page.buyers).toEqual([
      { position: 0, customerId: "c0" },
      { position: 1, customerId: "c1" },
    ]);
    expect(page.hasNextPage).toBe(true);
    expect(requested).toEqual([]);
  });

  it("continues from the embedded array into the first page", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const page = await retrieveBuyersWindow(loadPage, book, forward(2, 3));
    expect(page.buyers.map((entry) => entry.customerId)).toEqual(["c2", "c3", "c4"]);
    expect(requested).toEqual([0]);
  });

  it("loads only the pages that hold the window", async () => {
    const { book, loadPage, requested } = bookWith(40);
    const page = await retrieveBuyersWindow(loadPage, book, forward(13, 5));
    expect(page.buyers.map((entry) => entry.customerId)).toEqual(["c13", "c14", "c15", "c16", "c17"]);
    expect(requested).toEqual([2, 3]);
  });

  it("ships only the window's entries of the pages that hold it, one past the window only when the count cannot tell", async () => {
    const { book, loadPage, shipped } = bookWith(40, 3, 10);
    await retrieveBuyersWindow(loadPage, book, forward(15, 10));
    expect(shipped()).toBe(10);
    await retrieveBuyersWindow(loadPage, book, forward(35, 10));
    expect(shipped()).toBe(10 + 5);
  });

  it("says nothing follows at the end of the list", async () => {
    const { book, loadPage } = bookWith(12);
    const page = await retrieveBuyersWindow(loadPage, book, forward(10, 5));
    expect(page.buyers.map((entry) => entry.customerId)).toEqual(["c10", "c11"]);
    expect(page.hasNextPage).toBe(false);
  });

  it("looks one entry past the window when the stored count lags behind the pages", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const lagging = { ...book, purchase_count: 7 };
    const page = await retrieveBuyersWindow(loadPage, lagging, forward(5, 2));
    expect(page.buyers.map((entry) => entry.customerId)).toEqual(["c5", "c6"]);
    expect(page.hasNextPage).toBe(true);
    expect(requested).toEqual([0, 1]);
  });

  it("returns an empty window for first: 0 and still tells whether more follow", async () => {
    const { book, loadPage } = bookWith(5);
    const page = await retrieveBuyersWindow(loadPage, book, forward(0, 0));
    expect(page).toEqual({ buyers: [], hasNextPage: true, hasPreviousPage: false });
  });

  it("refuses to guess the pages of a book stored without a page size", async () => {
    const { book, loadPage } = bookWith(12);
    const legacy = { ...book, extra_page_size: undefined as unknown as number };
    await expect(retrieveBuyersWindow(loadPage, legacy, forward(0, 10))).rejects.toThrow(/no valid extra_page_size.*must be migrated/);
  });

  it.each([-1, 101, 1.5])("rejects first: %p", async (first) => {
    const { book, loadPage } = bookWith(5);
    await expect(retrieveBuyersWindow(loadPage, book, forward(0, first))).rejects.toMatchObject({ code: "BAD_USER_INPUT" });
  });
});

describe("reading a window of a book's buyers backward", () => {
  const backward = (last: number, before: number | null = null, after: number | null = null): BuyersWindowRequest => ({
    after,
    before,
    last,
  });

  it.each([
    [5, 2],
    [12, 5],
    [40, 7],
    [40, 0],
  ])("reads the newest of %p purchases, %p of them, from where the count points", async (purchases, last) => {
    const { book, loadPage } = bookWith(purchases);
    const page = await retrieveBuyersWindow(loadPage, book, backward(last));
    expect(ids(page)).toEqual(customers(purchases).slice(purchases - last));
    expect(page.buyers.map((entry) => entry.position)).toEqual(Array.from({ length: last }, (_, index) => purchases - last + index));
    expect({ hasPreviousPage: page.hasPreviousPage, hasNextPage: page.hasNextPage }).toEqual({
      hasPreviousPage: last < purchases,
      hasNextPage: false,
    });
  });

  it("finds the newest purchase while the stored count still lags its append, even onto a new page", async () => {
    const { book, loadPage } = bookWith(16);
    const lagging: BookDocument = { ...book, purchase_count: 15 };
    const page = await retrieveBuyersWindow(loadPage, lagging, backward(3));
    expect(ids(page)).toEqual(["c13", "c14", "c15"]);
  });

  it("reads the window before a cursor across the embedded edge, and knows nothing precedes the list's start", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const page = await retrieveBuyersWindow(loadPage, book, backward(4, 5));
    expect(ids(page)).toEqual(["c1", "c2", "c3", "c4"]);
    expect(page).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    expect(requested).toEqual([0]);
    const first = await retrieveBuyersWindow(loadPage, book, backward(4, 1));
    expect(ids(first)).toEqual(["c0"]);
    expect(first).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it("keeps to the window between after and before", async () => {
    const { book, loadPage } = bookWith(12);
    const page = await retrieveBuyersWindow(loadPage, book, backward(10, 8, 4));
    expect(ids(page)).toEqual(["c5", "c6", "c7"]);
    expect(page.hasPreviousPage).toBe(false);
    const forwardInWindow = await retrieveBuyersWindow(loadPage, book, { after: 4, before: 8, first: 2 });
    expect(ids(forwardInWindow)).toEqual(["c5", "c6"]);
    expect(forwardInWindow).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });

  it.each([-1, 101, 1.5])("rejects last: %p", async (last) => {
    const { book, loadPage } = bookWith(5);
    await expect(retrieveBuyersWindow(loadPage, book, backward(last))).rejects.toMatchObject({ code: "BAD_USER_INPUT", argument: "last" });
  });
});

describe("the pages covering a range of extra-sales offsets", () => {
  it.each([
    [0, 0, 4, []],
    [0, 1, 4, [0]],
    [3, 5, 4, [0, 1]],
    [4, 8, 4, [1]],
    [0, 101, 1000, [0]],
  ])("offsets [%p, %p) with pages of %p are on pages %p", (from, to, pageSize, pages) => {
    expect(extraSalesPagesCovering(from, to, pageSize)).toEqual(pages);
  });
});
