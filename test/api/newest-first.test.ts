import { graphql } from "../__generated__";
import type { BuyersBothWaysQueryVariables, CatalogBothWaysQueryVariables } from "../__generated__/graphql";
import { openTestApi, useTestApi, type TestApi } from "../support/api";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { extraSalesCollection, salesCollection } from "../../src/sales/documents";
import { customers, readAllCustomers, seedBook } from "../support/factories";

/** Small pages so that windows cross the embedded edge and page edges with few purchases. */
const SMALL = { outlierThreshold: 5, extraSalesPageSize: 4 };

const PAGE = graphql(`
  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    book(id: $id) {
      customersPurchased(first: $first, after: $after, last: $last, before: $before) {
        ...BuyerPage
      }
    }
  }
`);

const api = useTestApi();
// The bytes of every reply since the test began, from the one command monitor.
let repliesBefore = 0;
const replyBytes = () => api.monitor.snapshot().bytesReceived - repliesBefore;

beforeAll(async () => {
  await seedBook(api.db, "small", customers(3));
  await seedBook(api.db, "outlier", customers(5000));
  await seedBook(api.db, "two-pages", customers(1200));
  for (const purchases of [4, 5, 6, 9, 13, 14]) await seedBook(api.db, `edges-${purchases}`, customers(purchases), SMALL);
});
beforeEach(() => {
  api.commands.reset();
  repliesBefore = api.monitor.snapshot().bytesReceived;
});

async function page(id: string, variables: Omit<BuyersBothWaysQueryVariables, "id">) {
  const result = await api.execute(PAGE, { id, ...variables });
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!.book!.customersPurchased;
}

const ids = (connection: { edges: { node: { id: string } }[] }) => connection.edges.map((edge) => edge.node.id);

/** Every buyer of a book, newest page first, read backward with `last`/`before` as a Relay client would. */
async function readAllBackward(id: string, pageSize: number): Promise<string[]> {
  const pages: string[][] = [];
  let before: string | null = null;
  for (;;) {
    const connection = await page(id, { last: pageSize, before });
    pages.unshift(ids(connection));
    expect(connection.pageInfo.hasNextPage).toBe(before !== null);
    if (!connection.pageInfo.hasPreviousPage) return pages.flat();
    before = connection.pageInfo.startCursor;
  }
}

describe("Book.customersPurchased newest first", () => {
  it("reads the newest window of an outlier's buyers with one query for the book and one for its last pages", async () => {
    const newest = await page("outlier", { last: 20 });
    expect(ids(newest)).toEqual(customers(20, 4980));
    expect(newest.pageInfo).toEqual({
      hasPreviousPage: true,
      hasNextPage: false,
      startCursor: customerCursor(4980),
      endCursor: customerCursor(4999),
    });
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
  });

  it("reads a small book's newest buyers from the book alone", async () => {
    const newest = await page("small", { last: 2 });
    expect(ids(newest)).toEqual(["user01", "user02"]);
    expect(newest.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect(api.commands.names()).toEqual(["find"]);
  });

  it("shows an appended purchase in the newest window while purchase_count still lags it", async () => {
    await seedBook(api.db, "lagging", customers(13), SMALL);
    // An append in flight: the purchase is on a new page, the count not yet incremented.
    await extraSalesCollection(api.db).insertOne({ book_id: "lagging", page: 2, customers_purchased_extra: ["in-flight"], count: 1 });
    const newest = await page("lagging", { last: 3 });
    expect(ids(newest)).toEqual(["user11", "user12", "in-flight"]);
    expect(newest.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect((await salesCollection(api.db).findOne({ _id: "lagging" }))?.purchase_count).toBe(13);
  });

  it.each([
    ["edges-4", 2],
    ["edges-5", 5],
    ["edges-6", 1],
    ["edges-9", 4],
    ["edges-13", 3],
    ["edges-14", 4],
    ["edges-14", 5],
    ["two-pages", 97],
  ])("gives %p's buyers in the same order backward as forward, in pages of %p", async (id, pageSize) => {
    expect(await readAllBackward(id, pageSize)).toEqual(await readAllCustomers(api, id, pageSize));
  });

  it("says nothing precedes a window that starts the list, and something follows one read before a cursor", async () => {
    const first = await page("edges-9", { last: 5, before: customerCursor(5) });
    expect(ids(first)).toEqual(customers(5));
    expect(first.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it("refuses first and last together, and a malformed before, naming the argument", async () => {
    const both = await api.execute(PAGE, { id: "small", first: 2, last: 2 });
    expect(both.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argumentName: "last" });
    const malformed = await api.execute(PAGE, { id: "small", last: 2, before: "nonsense" });
    expect(malformed.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argumentName: "before" });
    expect(api.commands.names()).toEqual(["find", "find"]);
  });
});

describe("a deep window of buyers", () => {
  it("receives about the window it returns, not the whole extra_sales page", async () => {
    const deep = await page("outlier", { first: 20, after: customerCursor(2499) });
    expect(ids(deep)).toEqual(customers(20, 2500));
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
    expect(replyBytes()).toBeLessThanOrEqual(3 * 1024);
  });

  it("receives about the window it returns going backward too", async () => {
    const deep = await page("outlier", { last: 20, before: customerCursor(2520) });
    expect(ids(deep)).toEqual(customers(20, 2500));
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
    expect(replyBytes()).toBeLessThanOrEqual(3 * 1024);
  });
});

describe("Query.books newest first", () => {
  const BOOKS = graphql(`
    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {
      books(first: $first, after: $after, last: $last, before: $before) {
        ...BookPage
      }
    }
  `);
  // Integers, then strings, then ObjectIds: the page edges fall inside and between the id types.
  const CATALOG = ["1", "2", "10", "apple", "pear", "64b7f0c2a1b2c3d4e5f60718", "64b7f0c2a1b2c3d4e5f60719"];
  let catalog: TestApi;
  beforeAll(async () => {
    catalog = await openTestApi();
    for (const id of CATALOG) await seedBook(catalog.db, id, []);
  });
  afterAll(() => catalog.close());

  async function books(variables: CatalogBothWaysQueryVariables) {
    const result = await catalog.execute(BOOKS, variables);
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.books;
  }

  it.each([1, 2, 3, 7, 8])("lists the catalog backward in pages of %p in the same order as forward", async (pageSize) => {
    const pages: string[][] = [];
    let before: string | null = null;
    for (;;) {
      const page = await books({ last: pageSize, before });
      pages.unshift(page.edges.map((edge) => edge.node.id));
      expect(page.pageInfo.hasNextPage).toBe(before !== null);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(pages.flat()).toEqual(CATALOG);
  });

  it("reads the last window with one query", async () => {
    catalog.commands.reset();
    const page = await books({ last: 2 });
    expect(page.edges.map((edge) => edge.node.id)).toEqual(CATALOG.slice(-2));
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(catalog.commands.names()).toEqual(["find"]);
  });

  it("refuses a cursor paired with the other direction's size", async () => {
    const end = (await books({ first: 2 })).pageInfo.endCursor;
    expect((await catalog.execute(BOOKS, { first: 2, before: end })).errors?.[0]?.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      argumentName: "before",
    });
    expect((await catalog.execute(BOOKS, { last: 2, after: end })).errors?.[0]?.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      argumentName: "after",
    });
  });
});
