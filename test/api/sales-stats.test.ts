import { graphql } from "../__generated__";
import { openTestApi, type TestApi } from "../support/api";
import { customers, recordPurchases, seedBook } from "../support/factories";

const SALES_STATS = graphql(`
  query SalesStats($top: Int) {
    salesStats(top: $top) {
      books
      outliers
      extraSalesDocuments
      overflowPagesPerOutlier {
        max
        median
        p99
      }
      largestBooks {
        id: databaseId
        purchaseCount
        hasExtras
      }
      outlierThreshold
      extraSalesPageSize
    }
  }
`);

const settings = { outlierThreshold: 5, extraSalesPageSize: 10 };

let api: TestApi;
beforeEach(async () => void (api = await openTestApi({ settings })));
afterEach(() => api.close());

async function salesStats(top?: number) {
  const result = await api.execute(SALES_STATS, { top });
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!.salesStats;
}

describe("the salesStats query", () => {
  it("reports an empty catalog as zeros with the settings in force", async () => {
    expect(await salesStats()).toEqual({
      books: 0,
      outliers: 0,
      extraSalesDocuments: 0,
      overflowPagesPerOutlier: { max: 0, median: 0, p99: 0 },
      largestBooks: [],
      outlierThreshold: 5,
      extraSalesPageSize: 10,
    });
  });

  it("counts books, outliers and pages, and summarises pages per outlier", async () => {
    // Past the threshold of 5, pages of 10: 0, 0, 1, 2 and 3 pages.
    const purchases = { small: 2, full: 5, "one-page": 15, "two-pages": 25, "three-pages": 26 };
    for (const [id, count] of Object.entries(purchases)) await seedBook(api.db, id, customers(count), settings);

    const stats = await salesStats();
    expect(stats).toMatchObject({ books: 5, outliers: 3, extraSalesDocuments: 6, overflowPagesPerOutlier: { max: 3, median: 2, p99: 3 } });
  });

  it("lists the largest books by purchase count, largest first, as many as asked", async () => {
    for (const [id, count] of [
      ["a", 3],
      ["b", 40],
      ["c", 12],
      ["d", 7],
    ] as const)
      await seedBook(api.db, id, customers(count), settings);

    const { largestBooks } = await salesStats(3);
    expect(largestBooks).toEqual([
      { id: "b", purchaseCount: 40, hasExtras: true },
      { id: "c", purchaseCount: 12, hasExtras: true },
      { id: "d", purchaseCount: 7, hasExtras: true },
    ]);
  });

  it("reads sizes from metadata and the largest books from their index, with their buyers as far as selected", async () => {
    for (const [id, count] of [
      ["a", 3],
      ["b", 4],
    ] as const)
      await seedBook(api.db, id, customers(count), settings);
    api.commands.reset();

    const result = await api.execute(
      `{ salesStats(top: 1) { books largestBooks { id: databaseId customersPurchased(first: 2) { edges { node { id: databaseId } } } } } }`,
    );

    expect(result.data).toEqual({
      salesStats: { books: 2, largestBooks: [{ id: "b", customersPurchased: { edges: customers(2).map((id) => ({ node: { id } })) } }] },
    });
    expect(api.commands.names().sort()).toEqual(["aggregate", "aggregate", "count", "count", "find"]);
    const largest = api.commands.received()[api.commands.names().indexOf("find")];
    expect(largest?.map((book) => book.customers_purchased)).toEqual([customers(3)]);
  });

  it("sees purchases recorded through the API", async () => {
    await seedBook(api.db, "live", [], settings);
    await recordPurchases(api, "live", customers(16));

    expect(await salesStats()).toMatchObject({ outliers: 1, extraSalesDocuments: 2, largestBooks: [{ id: "live", purchaseCount: 16 }] });
  });

  it("refuses a top outside 0 to 100 with BAD_USER_INPUT naming top", async () => {
    const result = await api.execute(SALES_STATS, { top: 101 });
    expect(result.errors?.[0]?.extensions).toEqual({ code: "BAD_USER_INPUT", argumentName: "top" });
  });
});

describe("salesStats under load", () => {
  // Issue 13: 15 aliases of salesStats(top: 100) in one anonymous request sent 75 commands at once and emptied the pool.
  const FLOOD = `{ ${Array.from({ length: 15 }, (_, index) => `a${index}: salesStats(top: 100) { books largestBooks { databaseId } }`).join(" ")} }`;

  it("answers 15 aliases in one request with one round of its five commands, and a repeat within seconds with none", async () => {
    await seedBook(api.db, "x", customers(3), settings);
    api.commands.reset();
    const first = await api.execute(FLOOD);
    expect(first.errors).toBeUndefined();
    expect(Object.values(first.data!)).toEqual(Array(15).fill({ books: 1, largestBooks: [{ databaseId: "x" }] }));
    expect(api.commands.names()).toHaveLength(5);

    api.commands.reset();
    expect((await api.execute(FLOOD)).errors).toBeUndefined();
    expect(api.commands.names()).toEqual([]);
  });
});
