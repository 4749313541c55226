import { graphql } from "../__generated__";
import { openTestApi, useTestApi } from "../support/api";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { customers, customersPage, readAllCustomers, recordPurchases, seedBook } from "../support/factories";

const api = useTestApi();
beforeAll(async () => {
  await seedBook(api.db, "1", customers(3));
  await seedBook(api.db, "2", customers(1000));
  await seedBook(api.db, "3", customers(5000));
});
beforeEach(() => api.commands.reset());

describe("Book.customersPurchased", () => {
  it("lists a small book's buyers from the book document alone", async () => {
    const result = await customersPage(api, "1");
    expect(result.data?.book?.customersPurchased).toMatchObject({
      totalCount: 3,
      edges: customers(3).map((id) => ({ node: { id } })),
      pageInfo: { hasNextPage: false, hasPreviousPage: false },
    });
    expect(api.commands.names()).toEqual(["find"]);
  });

  it("reads a first window of an outlier's buyers without any extra_sales query", async () => {
    const result = await customersPage(api, "2", 20);
    expect(result.data?.book?.customersPurchased.edges.map((edge) => edge.node.id)).toEqual(customers(20));
    expect(result.data?.book?.customersPurchased.pageInfo.hasNextPage).toBe(true);
    expect(api.commands.on("extra_sales")).toEqual([]);
  });

  it("crosses from the embedded array into extra_sales in one window", async () => {
    const first = await customersPage(api, "2", 45);
    api.commands.reset();
    const second = await customersPage(api, "2", 10, first.data?.book?.customersPurchased.pageInfo.endCursor);
    expect(second.data?.book?.customersPurchased.edges.map((edge) => edge.node.id)).toEqual(customers(10, 45));
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
  });

  it("reads a deep window with one query for the book and one for the pages that hold it", async () => {
    const result = await customersPage(api, "3", 100, customerCursor(4499));
    expect(result.data?.book?.customersPurchased.edges.map((edge) => edge.node.id)).toEqual(customers(100, 4500));
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
  });

  it("returns every buyer exactly once when paging through an outlier", async () => {
    expect(await readAllCustomers(api, "2", 37)).toEqual(customers(1000));
  });

  it("says where a window lies with Relay's pageInfo", async () => {
    const first = (await customersPage(api, "1", 2)).data!.book!.customersPurchased;
    expect(first.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: first.edges[0]!.cursor,
      endCursor: first.edges[1]!.cursor,
    });
    const last = (await customersPage(api, "1", 2, first.pageInfo.endCursor)).data!.book!.customersPurchased;
    expect(last.edges.map((edge) => edge.node.id)).toEqual(["user02"]);
    expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it("returns an empty window with null cursors for first: 0", async () => {
    const result = (await customersPage(api, "2", 0)).data!.book!.customersPurchased;
    expect(result).toEqual({
      totalCount: 1000,
      edges: [],
      pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it("uses the default of 20 when first is null", async () => {
    const result = (await customersPage(api, "2", null)).data!.book!.customersPurchased;
    expect(result.edges).toHaveLength(20);
  });

  it("keeps cursors valid while purchases are appended", async () => {
    await seedBook(api.db, "growing", customers(49));
    const before = (await customersPage(api, "growing", 48)).data!.book!.customersPurchased;
    await recordPurchases(api, "growing", ["late-1", "late-2"]);
    const after = await customersPage(api, "growing", 5, before.pageInfo.endCursor);
    expect(after.data?.book?.customersPurchased.edges.map((edge) => edge.node.id)).toEqual(["user48", "late-1", "late-2"]);
  });
});

describe("reading many books' buyers in one request", () => {
  const LISTING = graphql(`
    query ListingWithBuyers($first: Int!) {
      books(first: $first) {
        edges {
          node {
            id: databaseId
            customersPurchased(first: 60) {
              edges {
                node {
                  id: databaseId
                }
              }
            }
          }
        }
      }
    }
  `);

  it("costs the same number of queries for 3 books as for 50 outliers", async () => {
    const many = await openTestApi();
    try {
      for (let book = 0; book < 50; book += 1) await seedBook(many.db, `outlier-${book}`, customers(70));
      many.commands.reset();
      const few = await many.execute(LISTING, { first: 3 });
      const fewCommands = many.commands.names();
      many.commands.reset();
      const all = await many.execute(LISTING, { first: 50 });

      expect(few.data?.books.edges).toHaveLength(3);
      expect(all.data?.books.edges).toHaveLength(50);
      expect(all.data?.books.edges.every((edge) => edge.node.customersPurchased.edges.length === 60)).toBe(true);
      expect(fewCommands).toEqual(["find", "aggregate"]);
      expect(many.commands.names()).toEqual(["find", "aggregate"]);
    } finally {
      await many.close();
    }
  });
});
