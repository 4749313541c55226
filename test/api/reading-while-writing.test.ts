import { recordPurchase } from "../../src/sales/purchases";
import { useTestApi } from "../support/api";
import { customers, customersPage, invariantViolations, seedBook, storedPurchases } from "../support/factories";

const settings = { outlierThreshold: 50, extraSalesPageSize: 100 };
const PAGE = 37;
const WRITERS = 25;
const PURCHASES_PER_WRITER = 40;

const api = useTestApi({ settings });

/**
 * Appends purchases from several concurrent writers, each recording its own buyers one after another.
 * They call the domain's recordPurchase, which the mutation runs, to spend the test's time on the database.
 */
async function appendPurchases(bookId: string, onRecorded: () => void): Promise<void> {
  const writer = async (index: number) => {
    for (const customerId of customers(PURCHASES_PER_WRITER, 0, `writer${index}-`)) {
      await recordPurchase(api.db, bookId, customerId, settings);
      onRecorded();
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));
}

/** Reads every buyer page by page, noting how many pages arrived while writes were still going on. */
async function readBuyers(bookId: string, writesInFlight: () => boolean): Promise<{ buyers: string[]; pagesDuringWrites: number }> {
  const buyers: string[] = [];
  let pagesDuringWrites = 0;
  let after: string | null = null;
  for (;;) {
    const result = await customersPage(api, bookId, PAGE, after);
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    if (writesInFlight()) pagesDuringWrites += 1;
    const connection = result.data!.book!.customersPurchased;
    buyers.push(...connection.edges.map((edge) => edge.node.id));
    if (!connection.pageInfo.hasNextPage) return { buyers, pagesDuringWrites };
    after = connection.pageInfo.endCursor;
  }
}

it("pages through a book's buyers while 1,000 purchases are appended, seeing no buyer twice and every earlier buyer", async () => {
  // 400 earlier buyers: the embedded 50, then three full extra_sales pages and half a fourth.
  const earlier = customers(400, 0, "earlier-");
  await seedBook(api.db, "busy", earlier, settings);
  let recorded = 0;

  const writing = appendPurchases("busy", () => void (recorded += 1));
  const { buyers, pagesDuringWrites } = await readBuyers("busy", () => recorded < WRITERS * PURCHASES_PER_WRITER);
  await writing;

  expect(pagesDuringWrites).toBeGreaterThan(0);
  expect(new Set(buyers).size).toBe(buyers.length);
  expect(buyers.slice(0, earlier.length)).toEqual(earlier);
  const stored = await storedPurchases(api.db, "busy");
  expect(stored).toHaveLength(1400);
  expect(buyers).toEqual(stored.slice(0, buyers.length));
  expect(await invariantViolations(api.db, "busy", settings)).toEqual([]);
});
