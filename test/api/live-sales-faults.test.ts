import type { Db } from "mongodb";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../src/config";
import { driverTimeouts, openDatabase, type LiveDatabase } from "../../src/db/connection";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import type { RunningServer } from "../../src/graphql/transport/server";
import { recordPurchase } from "../../src/sales/purchases";
import { captureLog } from "../support/captured-log";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { seedBook, storedPurchases } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { subscribe, subscriptionClient, subscriptionsOpen, type Subscription } from "../support/subscriptions";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * What the change stream promises its subscribers under faults, on the run's replica set: the API reaches it
 * through a TCP proxy the test cuts, as a failed network path; purchases go on meanwhile through a client of the test's own, which nothing cuts.
 */
const SETTINGS = { outlierThreshold: 3, extraSalesPageSize: 4 };
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`;
const NEW_BUYERS = `subscription ($bookId: ID!) { newBuyers(bookId: $bookId) { missedBefore edge { node { databaseId } } } }`;

interface Sales {
  bookSales: { purchaseCount: number };
}
interface NewBuyers {
  newBuyers: { missedBefore: number; edge: { node: { databaseId: string } } };
}

let database: TestDatabase;
let proxy: TcpProxy;
let api: LiveDatabase;
let server: RunningServer;
const log = captureLog();
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  proxy = await startTcpProxy(process.env.TEST_REPLICA_SET_URI!);
  // Directly to the one member: discovery would otherwise lead the driver past the proxy, to the address the member announces.
  const uri = new URL(proxy.uri);
  uri.searchParams.set("directConnection", "true");
  // As `npm start` opens its database, with the request timeout's driver timeouts and the connection's watchdog.
  api = openDatabase(uri.toString(), database.db.databaseName, {
    ensureIndexes: ensureSalesIndexes,
    logger: log.logger,
    ...driverTimeouts(DEFAULT_REQUEST_TIMEOUT_MS),
  });
  await api.ready();
  server = await startTestHttpServer(api.db, { settings: SETTINGS, logger: log.logger });
});
afterAll(async () => {
  await server.stop();
  await api.close();
  await proxy.close();
  await database.close();
});

/** Records purchases one after another through the test's own client, as another API process would. */
async function buy(db: Db, bookId: string, customers: string[]): Promise<void> {
  for (const customerId of customers) await recordPurchase(db, bookId, customerId, SETTINGS);
}

/** A book's sales and new buyers, both listening before the test's first purchase. */
async function watch(bookId: string): Promise<{ sales: Subscription<Sales>; buyers: Subscription<NewBuyers>; close(): Promise<void> }> {
  const client = subscriptionClient(server.url);
  const sales = subscribe<Sales>(client, BOOK_SALES, { ids: [bookId] });
  const buyers = subscribe<NewBuyers>(client, NEW_BUYERS, { bookId });
  await sales.next();
  await subscriptionsOpen(server.url, "newBuyers", 1);
  return { sales, buyers, close: async () => void (await client.dispose()) };
}

async function expectEveryPurchaseDelivered(bookId: string, watched: Awaited<ReturnType<typeof watch>>): Promise<void> {
  const stored = await storedPurchases(database.db, bookId);
  const last = await watched.sales.until((value) => value.data!.bookSales.purchaseCount >= stored.length);
  expect(last.data!.bookSales.purchaseCount).toBe(stored.length);
  const received: NewBuyers["newBuyers"][] = [];
  while (received.length < stored.length) received.push((await watched.buyers.next()).data!.newBuyers);
  expect(received.map((event) => event.edge.node.databaseId)).toEqual(stored);
  expect(received.every((event) => event.missedBefore === 0)).toBe(true);
}

const named = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

it("resumes after the database connection is cut and restored, with no purchase lost or repeated", async () => {
  await seedBook(database.db, "cut", [], SETTINGS);
  const watched = await watch("cut");
  await buy(database.db, "cut", named("before", 3));
  await watched.sales.until((value) => value.data!.bookSales.purchaseCount === 3);
  const restartsBefore = (await scrapeMetrics(server)).sample("bookstore_change_stream_restarts_total", 'reason="error"')!;

  await proxy.cut();
  await buy(database.db, "cut", named("during", 6));
  // The stream has met the cut (its next getMore failed) before the path comes back.
  while (!log.lines().some((line) => /change stream on sales opened again/.test(line.msg)))
    await new Promise((resolve) => setTimeout(resolve, 50));
  await proxy.restore();
  await buy(database.db, "cut", named("after", 2));

  await expectEveryPurchaseDelivered("cut", watched);
  expect((await scrapeMetrics(server)).sample("bookstore_change_stream_restarts_total", 'reason="error"')).toBeGreaterThan(restartsBefore);
  await watched.close();
});
