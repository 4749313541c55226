import { createBook } from "../../src/sales/books";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { storedPurchases } from "../support/factories";
import { send } from "../support/http";
import { subscribe, subscriptionClient, subscriptionsOpen, type Subscription } from "../support/subscriptions";

/**
 * Two API processes (`npm start`'s entry point) on one replica set, each with its own change stream: a
 * purchase recorded through either reaches the subscribers of both, and racing purchases end with every
 * subscriber holding the stored count, and every buyer delivered once, in the stored order.
 */
const SETTINGS = { outlierThreshold: 5, extraSalesPageSize: 20 };
const RACING = 200;
const CLIENTS = 10;
const SUBSCRIBERS_PER_PROCESS = 3;
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`;
const NEW_BUYERS = `subscription ($bookId: ID!) { newBuyers(bookId: $bookId) { missedBefore edge { node { databaseId } } } }`;
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { storedIn } }`;

interface Sales {
  bookSales: { purchaseCount: number };
}
interface NewBuyers {
  newBuyers: { missedBefore: number; edge: { node: { databaseId: string } } };
}

let database: TestDatabase;
let apis: ApiProcess[] = [];
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  const env = {
    MONGODB_URI: process.env.TEST_REPLICA_SET_URI!,
    MONGODB_DB: database.db.databaseName,
    NODE_ENV: "development",
    OUTLIER_THRESHOLD: String(SETTINGS.outlierThreshold),
    EXTRA_SALES_PAGE_SIZE: String(SETTINGS.extraSalesPageSize),
  };
  apis = await Promise.all([startApiProcess("src/cli/start.ts", env), startApiProcess("src/cli/start.ts", env)]);
});
afterAll(async () => {
  await Promise.all(apis.map((api) => api.stop()));
  await database.close();
});

async function record(url: string, bookId: string, customerId: string): Promise<void> {
  const answer = await send(url, { query: RECORD, variables: { bookId, customerId } });
  expect(answer.json?.errors).toBeUndefined();
}

/** The latest value each subscriber has, read until it shows `count` (each value arrives in order, so this ends once it is there). */
async function countReached(subscription: Subscription<Sales>, count: number): Promise<number> {
  const value = await subscription.until((next) => (next.data?.bookSales.purchaseCount ?? 0) >= count);
  return value.data!.bookSales.purchaseCount;
}

it("delivers a purchase recorded through one process to a subscriber of the other", async () => {
  const [a, b] = apis as [ApiProcess, ApiProcess];
  await createBook(database.db, { id: "crossing", title: "Crossing", author: "A" }, SETTINGS);
  const client = subscriptionClient(b.url);
  const sales = subscribe<Sales>(client, BOOK_SALES, { ids: ["crossing"] });
  expect((await sales.next()).data?.bookSales.purchaseCount).toBe(0);
  await record(a.url, "crossing", "through-a");
  expect((await sales.next()).data?.bookSales.purchaseCount).toBe(1);
  sales.stop();
  await client.dispose();
});

it("ends racing purchases through both processes with every subscriber at the stored count, and every buyer delivered once in order", async () => {
  await createBook(database.db, { id: "raced", title: "Raced", author: "A" }, SETTINGS);
  const clients = apis.map((api) => subscriptionClient(api.url));
  const sales = clients.flatMap((client) =>
    Array.from({ length: SUBSCRIBERS_PER_PROCESS }, () => subscribe<Sales>(client, BOOK_SALES, { ids: ["raced"] })),
  );
  const buyers = clients.map((client) => subscribe<NewBuyers>(client, NEW_BUYERS, { bookId: "raced" }));
  // Every subscription listens before the first purchase.
  await Promise.all(sales.map((subscription) => subscription.next()));
  await Promise.all(apis.map((api) => subscriptionsOpen(api.url, "newBuyers", 1)));

  let next = 0;
  const buyer = async (index: number) => {
    const api = apis[index % apis.length]!;
    for (let purchase = next++; purchase < RACING; purchase = next++) await record(api.url, "raced", `racer-${purchase}`);
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, index) => buyer(index)));

  const stored = await storedPurchases(database.db, "raced");
  expect(stored).toHaveLength(RACING);
  expect(await Promise.all(sales.map((subscription) => countReached(subscription, RACING)))).toEqual(sales.map(() => RACING));
  for (const subscription of buyers) {
    const received: NewBuyers["newBuyers"][] = [];
    while (received.length < RACING) received.push((await subscription.next()).data!.newBuyers);
    expect(received.map((event) => event.edge.node.databaseId)).toEqual(stored);
    expect(received.every((event) => event.missedBefore === 0)).toBe(true);
  }
  await Promise.all(clients.map((client) => client.dispose()));
});
