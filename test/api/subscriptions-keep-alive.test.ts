import { once } from "node:events";
import { DEFAULT_SUBSCRIPTION_SETTINGS } from "../../src/config";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { postOperation, startTestHttpServer } from "../support/http";
import { messagesOf, rawSocket } from "../support/subscriptions";
import { configuredTokens, tokenSpec } from "../support/tokens";

// The keep-alive as a load balancer sees it: a socket that carries frames is not pinged, an idle one is
// (src/graphql/transport/keep-alive.ts; test/unit/keep-alive.test.ts has the sweep's rules on a fake clock).
const writer = tokenSpec("keep-alive-writer", ["catalog:write"]);
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { book { purchaseCount } } }`;
const KEEP_ALIVE_SECONDS = 2;

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "1", customers(1));
  server = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(writer),
    subscriptions: { ...DEFAULT_SUBSCRIPTION_SETTINGS, subscriptionKeepAliveSeconds: KEEP_ALIVE_SECONDS },
  });
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An acknowledged bare socket, the pings it got while `busy` ran for a little over two intervals, then its next ping's. */
async function pingsWhile(busy: (connection: { send(message: unknown): void; messages: Record<string, unknown>[] }) => Promise<void>) {
  const { socket, send } = await rawSocket(server.url);
  const messages = messagesOf(socket);
  send({ type: "connection_init" });
  await until(() => messages.some((message) => message.type === "connection_ack"));
  let pings = 0;
  socket.on("ping", () => (pings += 1));
  const busyUntil = Date.now() + 2.3 * KEEP_ALIVE_SECONDS * 1000;
  while (Date.now() < busyUntil) await busy({ send, messages });
  const during = pings;
  // Idle from here: pinged within an interval.
  await once(socket, "ping");
  socket.close();
  return during;
}

describe("keep-alive pings over a real socket", () => {
  it("pings no connection that had a value written to it within the interval, and pings it once idle", async () => {
    let customer = 0;
    const pings = await pingsWhile(async ({ send, messages }) => {
      if (!messages.some((message) => message.type === "next")) {
        send({ id: "busy", type: "subscribe", payload: { query: BOOK_SALES, variables: { ids: ["1"] } } });
        await until(() => messages.some((message) => message.type === "next"));
      }
      const values = messages.length;
      customer += 1;
      const answer = await postOperation(server.url, RECORD, { bookId: "1", customerId: `pinged-${customer}` }, writer);
      expect(answer.json?.errors).toBeUndefined();
      await until(() => messages.length > values);
      await pause(100);
    });
    expect(pings).toBe(0);
  });

  it("pings no connection whose client sent a message within the interval, and pings it once idle", async () => {
    const pings = await pingsWhile(async ({ send }) => {
      send({ type: "pong" });
      await pause(100);
    });
    expect(pings).toBe(0);
  });
});
