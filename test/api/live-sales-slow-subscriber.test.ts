import type { Socket } from "node:net";
import type { Client } from "graphql-ws";
import type WebSocket from "ws";
import { DEFAULT_SUBSCRIPTION_SETTINGS } from "../../src/config";
import type { RunningServer } from "../../src/graphql/transport/server";
import { parseBookId } from "../../src/sales/book-ids";
import { salesCollection } from "../../src/sales/documents";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { subscribe, subscriptionClient } from "../support/subscriptions";

/**
 * A subscriber that stops reading its socket (a phone on a slow network, a tab in the background) while
 * 10,000 purchases pass: the server holds at most one value for it (conflated, as docs/api/subscriptions.md
 * promises) and at most one message in its own buffers, whatever the number of events; the other subscribers
 * keep receiving; once it reads again it gets the latest count. Counted in values and bytes, not in time; the reader
 * reads nothing for at least 30 s (issue 37's case), a floor that a busy machine only lengthens, never a limit.
 */
const EVENTS = 10_000;
const READS_NOTHING_MS = 30_000;
// Small batches: a change stream hands a large one over at once, and it is conflated before any socket could take it.
const BATCH = 100;
// The slow subscriber asks for the book's (64 KB) title too: the socket's kernel buffers (a few MB at most) then
// fill after some dozens of messages, and most of the events must be held back, or conflated, by the server.
const TITLE = "A long title. ".repeat(4_700);
const FAST = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`;
const SLOW = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount title } }`;

interface Sales {
  bookSales: { purchaseCount: number; title?: string };
}

let database: TestDatabase;
let server: RunningServer;
/** The server's side of each WebSocket, in the order they connected. */
const serverSockets: Socket[] = [];
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "hot", []);
  await salesCollection(database.db).updateOne({ _id: parseBookId("hot") }, { $set: { title: TITLE } });
  // Pings far apart: a socket that reads nothing answers none, and is dropped after two (the next test's case).
  server = await startTestHttpServer(database.db, {
    subscriptions: { ...DEFAULT_SUBSCRIPTION_SETTINGS, subscriptionKeepAliveSeconds: 3_600 },
  });
  server.httpServer.on("upgrade", (_request, socket: Socket) => serverSockets.push(socket));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

/** A client whose WebSocket the test can pause, as a reader that stops reading. */
function pausableClient(): { client: Client; socket: () => WebSocket } {
  let socket: WebSocket | undefined;
  const client = subscriptionClient(server.url, undefined, { on: { connected: (connected) => (socket = connected as WebSocket) } });
  return { client, socket: () => socket! };
}

/** `count` purchases of the book, as a change stream sees them: one update of its count each. */
async function purchases(count: number): Promise<void> {
  const _id = parseBookId("hot");
  await salesCollection(database.db).bulkWrite(
    Array.from({ length: count }, () => ({ updateOne: { filter: { _id }, update: { $inc: { purchase_count: 1 } } } })),
  );
}

async function counters(): Promise<{ delivered: number; conflated: number }> {
  const scrape = await scrapeMetrics(server);
  return {
    delivered: scrape.sample("bookstore_subscription_events_delivered_total", 'field="bookSales"') ?? 0,
    conflated: scrape.sample("bookstore_subscription_events_conflated_total", 'field="bookSales"') ?? 0,
  };
}

// Over jest's default limit (jest.config.js): the 30 s the reader reads nothing are waited out for real, and 20,000 events
// published a batch at a time take a busy 2-core machine about as long again.
it("holds at most one value and one message for a subscriber that reads nothing for 30 s while 10,000 events pass, and the others keep receiving", async () => {
  const slow = pausableClient();
  const slowSales = subscribe<Sales>(slow.client, SLOW, { ids: ["hot"] });
  expect((await slowSales.next()).data?.bookSales).toEqual({ purchaseCount: 0, title: TITLE });
  const fastClient = subscriptionClient(server.url);
  const fastSales = subscribe<Sales>(fastClient, FAST, { ids: ["hot"] });
  expect((await fastSales.next()).data?.bookSales.purchaseCount).toBe(0);
  const slowServerSocket = serverSockets[0]!;
  const messageBytes = JSON.stringify({
    id: "",
    type: "next",
    payload: { data: { bookSales: { purchaseCount: EVENTS, title: TITLE } } },
  }).length;

  slow.socket().pause();
  const pausedAt = Date.now();
  const before = await counters();
  let published = 0;
  let fastReceived = 0;
  /** Publishes a batch, then checks what the server holds for the slow subscriber once every event of it has been fanned out. */
  const publishAndCount = async () => {
    await purchases(BATCH);
    published += BATCH;
    // Every event of the batch has reached both subscribers' queues once the fast one shows the batch's last count.
    await fastSales.until((value) => {
      fastReceived += 1;
      return value.data!.bookSales.purchaseCount === published;
    });
    const { delivered, conflated } = await counters();
    // Each event for each subscriber was delivered, replaced by a later one (conflated), or still waits: the fast one has
    // taken its last, so what still waits is the slow one's.
    const waiting = 2 * published - (delivered - before.delivered) - (conflated - before.conflated);
    expect(waiting).toBeLessThanOrEqual(1);
    // What the process itself buffers for the socket, beyond the kernel's buffers: at most the one message being sent.
    expect(slowServerSocket.writableLength).toBeLessThanOrEqual(messageBytes + 64);
  };
  // Until the kernel's buffers are full and a message waits in the process for the reader: a few hundred events at most.
  while (slowServerSocket.writableLength === 0 && published < EVENTS) await publishAndCount();
  expect(slowServerSocket.writableLength).toBeGreaterThan(0);
  const stuckAt = published;
  while (published < stuckAt + EVENTS) await publishAndCount();
  expect(slowServerSocket.writableLength).toBeGreaterThan(0);
  // Still reading nothing until 30 s have passed: the server holds what it held, and keeps the connection.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, pausedAt + READS_NOTHING_MS - Date.now())));
  await publishAndCount();
  expect(slow.socket().readyState).toBe(slow.socket().OPEN);

  slow.socket().resume();
  let slowReceived = 0;
  const latest = await slowSales.until((value) => {
    slowReceived += 1;
    return value.data!.bookSales.purchaseCount === published;
  });
  expect(latest.data?.bookSales).toEqual({ purchaseCount: published, title: TITLE });
  // It got what the kernel held, then the latest; every other value was conflated, and none is left.
  const after = await counters();
  expect(after.delivered - before.delivered).toBe(fastReceived + slowReceived);
  expect(after.conflated - before.conflated).toBe(2 * published - fastReceived - slowReceived);
  const stored = await salesCollection(database.db).findOne({ _id: parseBookId("hot") });
  expect(stored?.purchase_count).toBe(published);
  await Promise.all([slow.client.dispose(), fastClient.dispose()]);
}, 120_000);
