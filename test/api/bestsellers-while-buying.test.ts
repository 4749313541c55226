import { graphql } from "../__generated__";
import type { BestsellersPageQuery } from "../__generated__/graphql";
import { TEST_SETTINGS, useTestApi } from "../support/api";
import { customers, RECORD_PURCHASE } from "../support/factories";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import { salesCollection } from "../../src/sales/documents";

const BESTSELLERS = graphql(`
  query BestsellersPage($after: String) {
    books(first: 3, after: $after, orderBy: { field: PURCHASE_COUNT, direction: DESC }) {
      ...BookPage
    }
  }
`);

const BOOKS = 60;
const BUYERS = 20;

const api = useTestApi();
beforeAll(async () => {
  // Few distinct counts, so that most books tie with others and purchases keep moving them past each other.
  const books = Array.from({ length: BOOKS }, (_, index) => ({
    book: { id: index + 1, title: `Book ${index + 1}`, author: "A" },
    customers: customers(index % 4, 0, `seed-${index}-`),
  }));
  await insertBooksWithPurchases(api.db, books, TEST_SETTINGS);
});

const storedCounts = async () =>
  new Map((await salesCollection(api.db).find({}).toArray()).map((book) => [String(book._id), book.purchase_count]));

/** One client buying random books, one at a time, until told to stop; returns how many it bought. */
async function buyUntil(stopped: () => boolean, client: number): Promise<number> {
  let bought = 0;
  while (!stopped()) {
    const bookId = String(1 + Math.floor(Math.random() * BOOKS));
    const result = await api.execute(RECORD_PURCHASE, { bookId, customerId: `racer-${client}-${bought}` });
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    bought += 1;
  }
  return bought;
}

/** Every page of the bestsellers, three at a time, pausing between pages so that purchases land mid-walk. */
async function walkBestsellers(): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  for (;;) {
    const result: { data?: BestsellersPageQuery | null; errors?: unknown } = await api.execute(BESTSELLERS, { after });
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    const page = result.data!.books;
    seen.push(...page.edges.map((edge) => edge.node.id));
    if (!page.pageInfo.hasNextPage) return seen;
    after = page.pageInfo.endCursor;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("Query.books by PURCHASE_COUNT DESC while 20 clients buy", () => {
  it("never shows a book twice, and shows once every book whose count did not change during the walk", async () => {
    let done = false;
    const buyers = Array.from({ length: BUYERS }, (_, client) => buyUntil(() => done, client));
    // Let the purchases start before the walk, so that it runs among them from its first page.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = await storedCounts();
    const seen = await walkBestsellers().finally(() => (done = true));
    const bought = (await Promise.all(buyers)).reduce((sum, count) => sum + count, 0);
    const after = await storedCounts();

    expect(bought).toBeGreaterThan(0);
    expect(seen.length).toBe(new Set(seen).size);
    const unchanged = [...before.keys()].filter((id) => before.get(id) === after.get(id));
    for (const id of unchanged) expect(seen).toContain(id);
    // The walk must have raced with purchases for the test to say anything: some counts moved during it.
    expect(unchanged.length).toBeLessThan(BOOKS);
  });
});
