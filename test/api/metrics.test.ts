import type { RunningServer } from "../../src/graphql/transport/server";
import { startTestHttpServer } from "../support/http";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { scrapeMetrics } from "../support/metrics";

let database: TestDatabase;
/** The servers the running test started: each listens to the client's commands until it stops. */
const servers: RunningServer[] = [];
/** The client's command listeners before any server starts (the test's own command monitor). */
let listenersBefore: number;
const commandListeners = () => database.client.listenerCount("commandStarted");
beforeAll(async () => {
  database = await openTestDatabase();
  await seedBook(database.db, "small", customers(3));
  await seedBook(database.db, "outlier", customers(60));
  listenersBefore = commandListeners();
});
// Stopped by the test that started them, so that servers never pile up listeners on the one client.
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  expect(commandListeners()).toBe(listenersBefore);
});
afterAll(() => database.close());

async function startServer(metricsOperations?: string[]): Promise<RunningServer> {
  const server = await startTestHttpServer(database.db, { metricsOperations });
  servers.push(server);
  return server;
}

async function post(server: RunningServer, query: string, variables?: Record<string, unknown>): Promise<void> {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
}

async function scrape(server: RunningServer) {
  const { contentType, sample } = await scrapeMetrics(server);
  expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return sample;
}

const scrapeBytes = async (server: RunningServer) => Buffer.byteLength((await scrapeMetrics(server)).text);

// The bound docs/operations/metrics.md promises for a scrape, whatever operation names clients send.
const SCRAPE_BOUND_BYTES = 256 * 1024;

const BUY = `mutation Buy($id: ID!, $customer: ID!) { recordPurchase(input: { bookId: $id, customerId: $customer }) { storedIn } }`;

describe("GET /metrics", () => {
  it("times requests by operation name", async () => {
    const server = await startServer();
    await post(server, `query Shelf { books(first: 1) { totalCount } }`);
    await post(server, `query Shelf { books(first: 1) { totalCount } }`);
    await post(server, `{ book(id: "small") { title } }`);

    const sample = await scrape(server);
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="Shelf"')).toBe(2);
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="anonymous"')).toBe(1);
    expect(sample("bookstore_graphql_request_duration_seconds_bucket", 'le="+Inf",operation="Shelf"')).toBe(2);
  });

  it("counts purchases by where they were stored", async () => {
    const server = await startServer();
    await post(server, BUY, { id: "small", customer: "c1" });
    await post(server, BUY, { id: "small", customer: "c2" });
    await post(server, BUY, { id: "outlier", customer: "c3" });

    const sample = await scrape(server);
    expect(sample("bookstore_purchases_recorded_total", 'storage="EMBEDDED"')).toBe(2);
    expect(sample("bookstore_purchases_recorded_total", 'storage="EXTRA_SALES"')).toBe(1);
  });

  it("counts a purchase sent twice with one purchaseId once, as it is stored once", async () => {
    const server = await startServer();
    const keyed = `mutation Buy($id: ID!, $customer: ID!, $line: ID) { recordPurchase(input: { bookId: $id, customerId: $customer, purchaseId: $line }) { replayed } }`;
    await post(server, keyed, { id: "small", customer: "c1", line: "order-1" });
    await post(server, keyed, { id: "small", customer: "c1", line: "order-1" });

    const sample = await scrape(server);
    expect(sample("bookstore_purchases_recorded_total", 'storage="EMBEDDED"')).toBe(1);
  });

  it("shows the shared writes of outliers' purchases: how many, and how many purchases they carried", async () => {
    const server = await startServer();
    for (const customer of ["c1", "c2", "c3"]) await post(server, BUY, { id: "outlier", customer });

    const sample = await scrape(server);
    // One after another, each purchase writes alone.
    expect(sample("bookstore_purchase_batch_size_count")).toBe(3);
    expect(sample("bookstore_purchase_batch_size_sum")).toBe(3);
    expect(sample("bookstore_purchase_batch_size_bucket", 'le="1"')).toBe(3);
  });

  it("leaves purchases uncounted when recording fails", async () => {
    const server = await startServer();
    await expect(post(server, BUY, { id: "missing", customer: "c1" })).rejects.toThrow(/NOT_FOUND/);

    const sample = await scrape(server);
    expect(sample("bookstore_purchases_recorded_total", 'storage="EMBEDDED"')).toBeUndefined();
    expect(sample("bookstore_purchases_recorded_total", 'storage="EXTRA_SALES"')).toBeUndefined();
  });

  it("counts database commands by name", async () => {
    const server = await startServer();
    const before = (await scrape(server))("bookstore_mongodb_commands_total", 'command="find"') ?? 0;
    await post(server, `{ book(id: "small") { title } }`);

    expect((await scrape(server))("bookstore_mongodb_commands_total", 'command="find"')).toBe(before + 1);
  });

  it("counts commands with one listener on the client per server, however many requests it serves, gone once it stops", async () => {
    const server = await startServer();
    for (let index = 0; index < 12; index += 1) await post(server, `{ book(id: "small") { title } }`);
    expect(commandListeners()).toBe(listenersBefore + 1);

    await server.stop();
    servers.splice(servers.indexOf(server), 1);
    expect(commandListeners()).toBe(listenersBefore);
  });

  it("counts the outliers in the database at each scrape", async () => {
    const server = await startServer();
    expect((await scrape(server))("bookstore_outlier_books")).toBe(1);

    await seedBook(database.db, "second-outlier", customers(51));
    expect((await scrape(server))("bookstore_outlier_books")).toBe(2);
  });

  it("keeps each server's metrics apart in one process", async () => {
    const [one, other] = [await startServer(), await startServer()];
    await post(one, `query OnlyOnOne { books(first: 0) { totalCount } }`);

    expect((await scrape(one))("bookstore_graphql_request_duration_seconds_count", 'operation="OnlyOnOne"')).toBe(1);
    expect((await scrape(other))("bookstore_graphql_request_duration_seconds_count", 'operation="OnlyOnOne"')).toBeUndefined();
  });

  it("folds operation names past the first hundred labels (anonymous and unresolved among them) into one label", async () => {
    const server = await startServer();
    for (let index = 0; index < 100; index += 1) await post(server, `query Op${index} { books(first: 0) { totalCount } }`);

    const sample = await scrape(server);
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="Op97"')).toBe(1);
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="Op98"')).toBeUndefined();
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="other"')).toBe(2);
  });

  it("stays under 256 KB after 120 anonymous requests named with 50 KB each, which all count as other", async () => {
    const server = await startServer();
    const hugeName = (index: number) => `Op${index}_${"x".repeat(50_000)}`;
    for (let index = 0; index < 120; index += 1) await post(server, `query ${hugeName(index)} { books(first: 0) { totalCount } }`);

    expect(await scrapeBytes(server)).toBeLessThan(SCRAPE_BOUND_BYTES);
    expect((await scrape(server))("bookstore_graphql_request_duration_seconds_count", 'operation="other"')).toBe(120);
  });

  it("stays under 256 KB with every label taken by 64-byte names, and keeps a listed operation's own label from first-comers", async () => {
    const server = await startServer(["ProductPage"]);
    const longestName = (index: number) => `Op${String(index).padStart(3, "0")}`.padEnd(64, "x");
    for (let index = 0; index < 150; index += 1) await post(server, `query ${longestName(index)} { books(first: 0) { totalCount } }`);
    await post(server, `query ProductPage { books(first: 0) { totalCount } }`);

    expect(await scrapeBytes(server)).toBeLessThan(SCRAPE_BOUND_BYTES);
    const sample = await scrape(server);
    expect(sample("bookstore_graphql_request_duration_seconds_count", `operation="${longestName(0)}"`)).toBe(1);
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="ProductPage"')).toBe(1);
    expect(sample("bookstore_graphql_request_duration_seconds_count", 'operation="other"')).toBe(150 - 97);
  });
});
