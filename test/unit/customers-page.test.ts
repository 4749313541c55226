import { emptySalesDocument } from "../../src/sales/books";
import { overflowPagesCovering, retrieveCustomersPage, type PageLoader } from "../../src/sales/customers";
import { layOutPurchases } from "../../src/sales/layout";
import type { PageKey } from "../../src/sales/loaders";

const customers = (count: number) => Array.from({ length: count }, (_, index) => `c${index}`);

/** A book laid out in memory, with a page loader that records which pages were asked for. */
function bookWith(purchases: number, threshold = 3, pageSize = 4) {
  const empty = emptySalesDocument({ id: 7, title: "T", author: "A" }, { extraSalesPageSize: pageSize });
  const { book, pages } = layOutPurchases(empty, customers(purchases), { outlierThreshold: threshold });
  const requested: number[] = [];
  const loadPage: PageLoader = async ({ page }: PageKey) => {
    requested.push(page);
    return pages[page] ?? null;
  };
  return { book, loadPage, requested };
}

describe("reading a page of a book's customers", () => {
  it("reads a window inside the embedded array without loading any page", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const page = await retrieveCustomersPage(loadPage, book, 0, 2);
    expect(page.entries).toEqual([
      { position: 0, customerId: "c0" },
      { position: 1, customerId: "c1" },
    ]);
    expect(page.hasNextPage).toBe(true);
    expect(requested).toEqual([]);
  });

  it("continues from the embedded array into the first page", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const page = await retrieveCustomersPage(loadPage, book, 2, 3);
    expect(page.entries.map((entry) => entry.customerId)).toEqual(["c2", "c3", "c4"]);
    expect(requested).toEqual([0]);
  });

  it("loads only the pages that hold the window", async () => {
    const { book, loadPage, requested } = bookWith(40);
    const page = await retrieveCustomersPage(loadPage, book, 13, 5);
    expect(page.entries.map((entry) => entry.customerId)).toEqual(["c13", "c14", "c15", "c16", "c17"]);
    expect(requested).toEqual([2, 3]);
  });

  it("says there is no next page at the end of the list", async () => {
    const { book, loadPage } = bookWith(12);
    const page = await retrieveCustomersPage(loadPage, book, 10, 5);
    expect(page.entries.map((entry) => entry.customerId)).toEqual(["c10", "c11"]);
    expect(page.hasNextPage).toBe(false);
  });

  it("looks one entry past the window when the stored count lags behind the pages", async () => {
    const { book, loadPage, requested } = bookWith(12);
    const lagging = { ...book, purchase_count: 7 };
    const page = await retrieveCustomersPage(loadPage, lagging, 5, 2);
    expect(page.entries.map((entry) => entry.customerId)).toEqual(["c5", "c6"]);
    expect(page.hasNextPage).toBe(true);
    expect(requested).toEqual([0, 1]);
  });

  it("returns an empty page for first: 0 and still tells whether more follow", async () => {
    const { book, loadPage } = bookWith(5);
    const page = await retrieveCustomersPage(loadPage, book, 0, 0);
    expect(page).toEqual({ entries: [], hasNextPage: true });
  });

  it("refuses to guess the pages of a book stored without a page size", async () => {
    const { book, loadPage } = bookWith(12);
    const legacy = { ...book, extra_page_size: undefined as unknown as number };
    await expect(retrieveCustomersPage(loadPage, legacy, 0, 10)).rejects.toThrow(/no valid extra_page_size.*must be migrated/);
  });

  it.each([-1, 101, 1.5])("rejects first: %p", async (first) => {
    const { book, loadPage } = bookWith(5);
    await expect(retrieveCustomersPage(loadPage, book, 0, first)).rejects.toMatchObject({ code: "BAD_USER_INPUT" });
  });
});

describe("the pages covering a range of overflow offsets", () => {
  it.each([
    [0, 0, 4, []],
    [0, 1, 4, [0]],
    [3, 5, 4, [0, 1]],
    [4, 8, 4, [1]],
    [0, 101, 1000, [0]],
  ])("offsets [%p, %p) with pages of %p are on pages %p", (from, to, pageSize, pages) => {
    expect(overflowPagesCovering(from, to, pageSize)).toEqual(pages);
  });
});
