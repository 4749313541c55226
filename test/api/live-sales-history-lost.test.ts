import { startOfflineServer, type RunningOfflineServer } from "@bookstore/offline-mongo";
import { MongoClient, type Db } from "mongodb";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../src/config";
import { driverTimeouts, openDatabase, type LiveDatabase } from "../../src/db/connection";
import type { RunningServer } from "../../src/graphql/transport/server";
import { createBook } from "../../src/sales/books";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import { recordPurchase } from "../../src/sales/purchases";
import { captureLog } from "../support/captured-log";
import { storedPurchases } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { subscribe, subscriptionClient, subscriptionsOpen } from "../support/subscriptions";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * A change stream whose resume point has left the history (ChangeStreamHistoryLost, 286): on a stand-in
 * replica set of the test's own with a history of 64 KiB, since no test can shrink a mongod's oplog that far.
 * The API's path to it is cut while purchases and other writes push its resume point out; once restored,
 * the stream starts from now and every subscriber gets the book's current figures and the buyers it missed.
 */
const SETTINGS = { outlierThreshold: 3, extraSalesPageSize: 4 };
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`;
const NEW_BUYERS = `subscription ($bookId: ID!) { newBuyers(bookId: $bookId) { missedBefore edge { node { databaseId } } } }`;

let standIn: RunningOfflineServer;
let proxy: TcpProxy;
let writer: MongoClient;
let db: Db;
let api: LiveDatabase;
let server: RunningServer;
const log = captureLog();
beforeAll(async () => {
  standIn = await startOfflineServer({ replicaSet: "rs0", oplogSizeBytes: 64 * 1024 });
  proxy = await startTcpProxy(standIn.uri);
  const uri = new URL(proxy.uri);
  uri.searchParams.set("directConnection", "true");
  api = openDatabase(uri.toString(), "lost", {
    ensureIndexes: ensureSalesIndexes,
    logger: log.logger,
    ...driverTimeouts(DEFAULT_REQUEST_TIMEOUT_MS),
  });
  await api.ready();
  server = await startTestHttpServer(api.db, { settings: SETTINGS, logger: log.logger });
  writer = await MongoClient.connect(`${standIn.uri}?directConnection=true`);
  db = writer.db("lost");
});
afterAll(async () => {
  await server.stop();
  await api.close();
  await writer.close();
  await proxy.close();
  await standIn.stop();
});

it("starts from now, and sends the current count and every missed buyer", async () => {
  await createBook(db, { id: "lost", title: "Lost", author: "A" }, SETTINGS);
  const client = subscriptionClient(server.url);
  const sales = subscribe<{ bookSales: { purchaseCount: number } }>(client, BOOK_SALES, { ids: ["lost"] });
  const buyers = subscribe<{ newBuyers: { missedBefore: number; edge: { node: { databaseId: string } } } }>(client, NEW_BUYERS, {
    bookId: "lost",
  });
  await sales.next();
  await subscriptionsOpen(server.url, "newBuyers", 1);
  for (const customer of ["a", "b"]) await recordPurchase(db, "lost", customer, SETTINGS);
  await sales.until((value) => value.data!.bookSales.purchaseCount === 2);

  await proxy.cut();
  for (const customer of ["c", "d", "e", "f", "g"]) await recordPurchase(db, "lost", customer, SETTINGS);
  // Other writes push the history past the stream's resume point.
  for (let index = 0; index < 20; index += 1) await db.collection("filler").insertOne({ padding: "x".repeat(10_000) });
  await proxy.restore();

  const stored = await storedPurchases(db, "lost");
  expect(stored).toHaveLength(7);
  const last = await sales.until((value) => value.data!.bookSales.purchaseCount === 7);
  expect(last.data!.bookSales.purchaseCount).toBe(7);
  const received: string[] = [];
  while (received.length < stored.length) received.push((await buyers.next()).data!.newBuyers.edge.node.databaseId);
  expect(received).toEqual(stored);
  expect((await scrapeMetrics(server)).sample("bookstore_change_stream_restarts_total", 'reason="history_lost"')).toBeGreaterThanOrEqual(1);
  expect(log.lines().some((line) => /change stream history lost/.test(line.msg))).toBe(true);
  await client.dispose();
});
