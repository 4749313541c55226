import type { RunningServer } from "../../src/graphql/transport/server";
import { captureLog } from "../support/captured-log";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook, storedPurchases } from "../support/factories";
import { postOperation, startTestHttpServer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { subscribe, subscriptionClient, subscriptionsOpen } from "../support/subscriptions";
import { configuredTokens, tokenSpec } from "../support/tokens";

const reader = tokenSpec("live-reader", ["purchases:read"]);
const writer = tokenSpec("live-writer", ["catalog:write"]);
const SETTINGS = { outlierThreshold: 3, extraSalesPageSize: 4 };

const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount hasExtras } }`;
const BESTSELLERS = `subscription ($top: Int) { bestsellers(top: $top) { databaseId purchaseCount } }`;
const NEW_BUYERS = `subscription ($bookId: ID!) { newBuyers(bookId: $bookId) { missedBefore purchaseCount edge { cursor node { databaseId } } } }`;
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { book { purchaseCount } } }`;

interface Sales {
  bookSales: { databaseId: string; purchaseCount: number; hasExtras: boolean };
}
interface Bestsellers {
  bestsellers: { databaseId: string; purchaseCount: number }[];
}
interface NewBuyers {
  newBuyers: { missedBefore: number; purchaseCount: number; edge: { cursor: string; node: { databaseId: string } } };
}

let database: TestDatabase;
let server: RunningServer;
const log = captureLog();
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  server = await startTestHttpServer(database.db, {
    settings: SETTINGS,
    logger: log.logger,
    apiTokens: configuredTokens(reader, writer),
  });
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

async function buy(bookId: string, customerId: string): Promise<number> {
  const answer = await postOperation(server.url, RECORD, { bookId, customerId }, writer);
  expect(answer.json?.errors).toBeUndefined();
  return (answer.json?.data as { recordPurchase: { book: { purchaseCount: number } } }).recordPurchase.book.purchaseCount;
}

describe("bookSales", () => {
  it("sends each book as it stands, then its figures after every purchase, across the threshold", async () => {
    await seedBook(database.db, "sales-1", customers(1), SETTINGS);
    await seedBook(database.db, "sales-2", [], SETTINGS);
    const client = subscriptionClient(server.url);
    const sales = subscribe<Sales>(client, BOOK_SALES, { ids: ["sales-1", "sales-2"] });
    const first = [await sales.next(), await sales.next()].map((value) => value.data?.bookSales);
    expect(first).toEqual([
      { databaseId: "sales-1", purchaseCount: 1, hasExtras: false },
      { databaseId: "sales-2", purchaseCount: 0, hasExtras: false },
    ]);

    for (const customer of customers(4, 0, "live")) await buy("sales-1", customer);
    const last = await sales.until((value) => value.data?.bookSales.purchaseCount === 5);
    expect(last.data?.bookSales).toEqual({ databaseId: "sales-1", purchaseCount: 5, hasExtras: true });
    sales.stop();
    await client.dispose();
  });

  it("refuses a book that does not exist with NOT_FOUND", async () => {
    const client = subscriptionClient(server.url);
    const sales = subscribe<Sales>(client, BOOK_SALES, { ids: ["no-such-book"] });
    const answer = await sales.next();
    expect(answer.errors?.map((error) => error.extensions?.["code"])).toEqual(["NOT_FOUND"]);
    await sales.ended;
    await client.dispose();
  });
});

describe("bestsellers", () => {
  it("sends the list again when a purchase moves a book onto it", async () => {
    const client = subscriptionClient(server.url);
    const list = subscribe<Bestsellers>(client, BESTSELLERS, { top: 2 });
    const before = (await list.next()).data!.bestsellers;
    expect(before).toHaveLength(2);
    await seedBook(database.db, "climber", [], SETTINGS);
    const needed = before.at(-1)!.purchaseCount + 1;
    for (const customer of customers(needed, 0, "climb")) await buy("climber", customer);
    const after = await list.until((value) => value.data!.bestsellers.some((book) => book.databaseId === "climber"));
    expect(after.data!.bestsellers.map((book) => book.databaseId)).toContain("climber");
    expect(after.data!.bestsellers.find((book) => book.databaseId === "climber")?.purchaseCount).toBe(needed);
    list.stop();
    await client.dispose();
  });
});

describe("newBuyers", () => {
  it("delivers each new buyer once, in purchase order, embedded and extra sales alike", async () => {
    await seedBook(database.db, "buyers", customers(1), SETTINGS);
    const client = subscriptionClient(server.url, reader);
    const buyers = subscribe<NewBuyers>(client, NEW_BUYERS, { bookId: "buyers" });
    await subscriptionsOpen(server.url, "newBuyers", 1);
    const bought = customers(9, 0, "new");
    for (const customer of bought) await buy("buyers", customer);
    const received: NewBuyers["newBuyers"][] = [];
    while (received.length < bought.length) received.push((await buyers.next()).data!.newBuyers);
    expect(received.map((event) => event.edge.node.databaseId)).toEqual(bought);
    expect(received.map((event) => event.purchaseCount)).toEqual(bought.map((_customer, index) => index + 2));
    expect(received.every((event) => event.missedBefore === 0)).toBe(true);
    expect(await storedPurchases(database.db, "buyers")).toEqual([...customers(1), ...bought]);
    buyers.stop();
    await client.dispose();
  });

  it("is refused without purchases:read, before anything runs", async () => {
    for (const [token, code] of [
      [undefined, "UNAUTHENTICATED"],
      [writer, "FORBIDDEN"],
    ] as const) {
      const client = subscriptionClient(server.url, token);
      const buyers = subscribe<NewBuyers>(client, NEW_BUYERS, { bookId: "buyers" });
      const error = (await buyers.ended) as { extensions?: { code?: string } }[];
      expect(error.map((entry) => entry.extensions?.code)).toEqual([code]);
      await client.dispose();
    }
  });
});

describe("observability", () => {
  it("counts subscriptions by field and events delivered, and logs each subscription's start and end", async () => {
    await seedBook(database.db, "observed", [], SETTINGS);
    log.clear();
    const client = subscriptionClient(server.url);
    const sales = subscribe<Sales>(client, `subscription Observed($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`, {
      ids: ["observed"],
    });
    await sales.next();
    const open = await scrapeMetrics(server);
    expect(open.sample("bookstore_subscriptions", 'field="bookSales"')).toBe(1);
    expect(open.sample("bookstore_subscription_connections", 'token="no"')).toBe(1);
    await buy("observed", "watched");
    await sales.next();
    sales.stop();
    await client.dispose();

    const closed = await scrapeMetrics(server);
    expect(closed.sample("bookstore_subscriptions", 'field="bookSales"')).toBe(0);
    expect(closed.sample("bookstore_subscription_events_delivered_total", 'field="bookSales"')).toBeGreaterThanOrEqual(2);
    expect(closed.sample("bookstore_subscription_lag_seconds_count", 'field="bookSales"')).toBeGreaterThanOrEqual(1);
    const lines = log.lines() as unknown as Record<string, unknown>[];
    const started = lines.find((line) => line["msg"] === "graphql subscription started" && line["operationName"] === "Observed");
    const ended = lines.find((line) => line["msg"] === "graphql subscription ended" && line["operationName"] === "Observed");
    expect(started).toMatchObject({ operationType: "subscription" });
    expect(ended).toMatchObject({ subscriptionId: started?.["subscriptionId"], events: 2 });
  });
});
