import { once } from "node:events";
import { GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType, parseMessage, stringifyMessage } from "graphql-ws";
import WebSocket from "ws";
import type { RunningServer } from "../../src/graphql/transport/server";
import { parseBookId } from "../../src/sales/book-ids";
import { salesCollection } from "../../src/sales/documents";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { postOperation, startTestHttpServer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { subscribe, subscriptionClient, webSocketUrl, type Subscription } from "../support/subscriptions";
import { configuredTokens, tokenSpec } from "../support/tokens";

/**
 * Subscribers of one conflated operation (same text, operation name and variables) share its execution: each
 * change is resolved once for all of them (counted in the database commands its resolvers send), and each
 * still gets every value it would have got alone. Different variables, or a field one of them may not read,
 * are never merged.
 */
const reader = tokenSpec("shared-reader", ["purchases:read"]);
const writer = tokenSpec("shared-writer", ["catalog:write"]);
const SETTINGS = { outlierThreshold: 3, extraSalesPageSize: 4 };

// The newest buyer is read from the database for each value: the resolver work a shared execution does once.
const WITH_BUYERS = `subscription WithBuyers($ids: [ID!]!) {
  bookSales(ids: $ids) { databaseId purchaseCount customersPurchased(last: 1) { edges { node { databaseId } } } }
}`;
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { book { purchaseCount } } }`;

interface Sales {
  bookSales: { databaseId: string; purchaseCount: number; customersPurchased?: { edges: { node: { databaseId: string } }[] } };
}

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  server = await startTestHttpServer(database.db, { settings: SETTINGS, apiTokens: configuredTokens(reader, writer) });
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

async function buy(bookId: string, customerId: string): Promise<void> {
  const answer = await postOperation(server.url, RECORD, { bookId, customerId }, writer);
  expect(answer.json?.errors).toBeUndefined();
}

/** What a subscriber shows of a value: the book, its count and its newest buyer. */
function shown(value: Awaited<ReturnType<Subscription<Sales>["next"]>>) {
  const sales = value.data?.bookSales;
  return { book: sales?.databaseId, count: sales?.purchaseCount, newest: sales?.customersPurchased?.edges[0]?.node.databaseId };
}

/** The `find`s a purchase and its delivery to `subscriptions` send, once each shows the purchase's count. */
async function findsForOnePurchase(bookId: string, customerId: string, count: number, subscriptions: Subscription<Sales>[]) {
  database.commands.reset();
  await buy(bookId, customerId);
  const values = await Promise.all(subscriptions.map((subscription) => subscription.until((value) => shown(value).count === count)));
  return { finds: database.commands.names().filter((name) => name === "find").length, values: values.map(shown) };
}

/**
 * Two subscribers of `query` on a new book, the second (with `variables[1]`) joining once a purchase has reached the
 * first: what each showed first, and the finds of a purchase delivered to the first alone, then to both.
 */
async function joinedFinds(query: string, bookId: string, variables: [Record<string, unknown>, Record<string, unknown>]) {
  await seedBook(database.db, bookId, customers(1), SETTINGS);
  const clients = [subscriptionClient(server.url, reader), subscriptionClient(server.url, reader)];
  const first = subscribe<Sales>(clients[0]!, query, variables[0]);
  const firstValue = shown(await first.next());
  const alone = await findsForOnePurchase(bookId, `${bookId}-alone`, 2, [first]);
  const second = subscribe<Sales>(clients[1]!, query, variables[1]);
  const joined = shown(await second.next());
  const together = await findsForOnePurchase(bookId, `${bookId}-together`, 3, [first, second]);
  first.stop();
  second.stop();
  await Promise.all(clients.map((client) => client.dispose()));
  return { firstValue, joined, alone, together };
}

it("resolves each change once for two subscribers of the same operation, and both get the same values", async () => {
  const same = { ids: ["shared"] };
  const { firstValue, joined, alone, together } = await joinedFinds(WITH_BUYERS, "shared", [same, same]);
  expect(firstValue).toEqual({ book: "shared", count: 1, newest: customers(1)[0] });
  // A subscriber that joins starts from the latest value, as one that subscribes alone starts from the book as it stands.
  expect(joined).toEqual({ book: "shared", count: 2, newest: "shared-alone" });
  expect(alone.values).toEqual([{ book: "shared", count: 2, newest: "shared-alone" }]);
  expect(together.values).toEqual([
    { book: "shared", count: 3, newest: "shared-together" },
    { book: "shared", count: 3, newest: "shared-together" },
  ]);
  // The resolvers' reads are part of the purchase's finds: a second subscriber of the operation adds none.
  expect(alone.finds).toBeGreaterThan(0);
  expect(together.finds).toBe(alone.finds);
});

it("does not merge subscribers whose variables differ: each gets its own books, resolved for each", async () => {
  await seedBook(database.db, "apart-1", customers(1), SETTINGS);
  await seedBook(database.db, "apart-2", [], SETTINGS);
  const [oneClient, bothClient] = [subscriptionClient(server.url, reader), subscriptionClient(server.url, reader)];
  const one = subscribe<Sales>(oneClient, WITH_BUYERS, { ids: ["apart-1"] });
  expect(shown(await one.next())).toMatchObject({ book: "apart-1", count: 1 });
  const alone = await findsForOnePurchase("apart-1", "apart-alone", 2, [one]);

  const both = subscribe<Sales>(bothClient, WITH_BUYERS, { ids: ["apart-1", "apart-2"] });
  expect([await both.next(), await both.next()].map(shown)).toEqual([
    { book: "apart-1", count: 2, newest: "apart-alone" },
    { book: "apart-2", count: 0, newest: undefined },
  ]);
  const apart = await findsForOnePurchase("apart-1", "apart-both", 3, [one, both]);

  expect(apart.values).toEqual([
    { book: "apart-1", count: 3, newest: "apart-both" },
    { book: "apart-1", count: 3, newest: "apart-both" },
  ]);
  // One execution each: the resolvers' reads are sent twice.
  expect(apart.finds).toBeGreaterThan(alone.finds);
  one.stop();
  both.stop();
  await Promise.all([oneClient.dispose(), bothClient.dispose()]);
});

it("merges subscribers whose variables differ only in their keys' order: one execution, its reads sent once", async () => {
  const ordered = `subscription Ordered($ids: [ID!]!, $last: Int!) {
    bookSales(ids: $ids) { databaseId purchaseCount customersPurchased(last: $last) { edges { node { databaseId } } } }
  }`;
  const { joined, alone, together } = await joinedFinds(ordered, "ordered", [
    { ids: ["ordered"], last: 1 },
    { last: 1, ids: ["ordered"] },
  ]);
  expect(joined).toEqual({ book: "ordered", count: 2, newest: "ordered-alone" });
  expect(together.values).toEqual([
    { book: "ordered", count: 3, newest: "ordered-together" },
    { book: "ordered", count: 3, newest: "ordered-together" },
  ]);
  // Keyed by the variables' JSON as sent, the second subscriber would run an execution of its own and read again.
  expect(alone.finds).toBeGreaterThan(0);
  expect(together.finds).toBe(alone.finds);
});

it("refuses a field to a subscriber who may not read it even while others share its operation, and counts every subscriber", async () => {
  await seedBook(database.db, "guarded", customers(1), SETTINGS);
  const open = async () => (await scrapeMetrics(server)).sample("bookstore_subscriptions", 'field="bookSales"') ?? 0;
  const openBefore = await open();
  const readerClient = subscriptionClient(server.url, reader);
  const allowed = subscribe<Sales>(readerClient, WITH_BUYERS, { ids: ["guarded"] });
  expect(shown(await allowed.next())).toMatchObject({ book: "guarded", newest: customers(1)[0] });

  const anonymousClient = subscriptionClient(server.url);
  const refused = subscribe<Sales>(anonymousClient, WITH_BUYERS, { ids: ["guarded"] });
  const errors = (await refused.ended) as { extensions?: { code?: string } }[];
  expect(errors.map((error) => error.extensions?.code)).toEqual(["UNAUTHENTICATED"]);
  // The public part of the same book is its own operation, shared with no one who reads more.
  const publicSales = subscribe<Sales>(
    anonymousClient,
    `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`,
    {
      ids: ["guarded"],
    },
  );
  expect(shown(await publicSales.next())).toEqual({ book: "guarded", count: 1, newest: undefined });

  await buy("guarded", "guarded-buyer");
  expect(shown(await allowed.until((value) => shown(value).count === 2))).toMatchObject({ newest: "guarded-buyer" });
  expect(shown(await publicSales.until((value) => shown(value).count === 2))).toEqual({ book: "guarded", count: 2, newest: undefined });
  expect((await open()) - openBefore).toBe(2);
  allowed.stop();
  publicSales.stop();
  await Promise.all([readerClient.dispose(), anonymousClient.dispose()]);
});

it("counts, for each subscriber of a shared execution, every value as delivered or conflated, even those its feed conflated once for all", async () => {
  await seedBook(database.db, "counted", [], SETTINGS);
  const PUBLISHED = 200;
  const counted = `subscription Counted($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;
  const clients = [subscriptionClient(server.url), subscriptionClient(server.url)];
  const subscriptions = clients.map((client) => subscribe<Sales>(client, counted, { ids: ["counted"] }));
  for (const subscription of subscriptions) expect(shown(await subscription.next()).count).toBe(0);
  const counters = async () => {
    const scrape = await scrapeMetrics(server);
    return {
      delivered: scrape.sample("bookstore_subscription_events_delivered_total", 'field="bookSales"') ?? 0,
      conflated: scrape.sample("bookstore_subscription_events_conflated_total", 'field="bookSales"') ?? 0,
    };
  };
  const before = await counters();
  // One command: the change stream hands its updates over in batches, faster than one value is resolved and sent.
  const _id = parseBookId("counted");
  await salesCollection(database.db).bulkWrite(
    Array.from({ length: PUBLISHED }, () => ({ updateOne: { filter: { _id }, update: { $inc: { purchase_count: 1 } } } })),
  );
  const received = await Promise.all(
    subscriptions.map(async (subscription) => {
      let values = 0;
      await subscription.until((value) => {
        values += 1;
        return shown(value).count === PUBLISHED;
      });
      return values;
    }),
  );
  const after = await counters();
  const got = received[0]! + received[1]!;
  expect(after.delivered - before.delivered).toBe(got);
  expect(after.conflated - before.conflated).toBe(2 * PUBLISHED - got);
  for (const subscription of subscriptions) subscription.stop();
  await Promise.all(clients.map((client) => client.dispose()));
});

/** A subscriber on a bare socket, as the wire carries it: each `next` message's text, with its own operation id. */
async function rawSubscriber(id: string, query: string, variables: Record<string, unknown>) {
  const socket = new WebSocket(webSocketUrl(server.url), GRAPHQL_TRANSPORT_WS_PROTOCOL);
  const frames: string[] = [];
  const arrived: (() => void)[] = [];
  socket.on("message", (data) => {
    const text = String(data as Buffer);
    const message = parseMessage(text);
    if (message.type === MessageType.ConnectionAck)
      socket.send(stringifyMessage({ id, type: MessageType.Subscribe, payload: { query, variables } }));
    if (message.type !== MessageType.Next) return;
    frames.push(text);
    arrived.splice(0).forEach((resolve) => resolve());
  });
  await once(socket, "open");
  socket.send(stringifyMessage({ type: MessageType.ConnectionInit }));
  const frameCount = async (count: number) => {
    while (frames.length < count) await new Promise<void>((resolve) => arrived.push(resolve));
  };
  return { frames, frameCount, close: () => socket.close() };
}

it("serializes each value once for all the subscribers of a shared execution, and writes each the message graphql-ws would send", async () => {
  await seedBook(database.db, "framed", [], SETTINGS);
  const framed = `subscription Framed($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;
  const subscribers = await Promise.all(["a", "second-subscription", "3"].map((id) => rawSubscriber(id, framed, { ids: ["framed"] })));
  await Promise.all(subscribers.map((subscriber) => subscriber.frameCount(1)));
  const stringify = jest.spyOn(JSON, "stringify");
  try {
    await buy("framed", "framed-buyer");
    await Promise.all(subscribers.map((subscriber) => subscriber.frameCount(2)));
    const bookSalesOf = (value: unknown) => (value as { data?: { bookSales?: { databaseId?: string } } } | undefined)?.data?.bookSales;
    const serialized = stringify.mock.calls.map(([value]) => value as { type?: string; payload?: unknown } | undefined);
    // graphql-ws stringified a message ({ id, type, payload }) for each subscriber, the same result inside each.
    expect(
      serialized.filter((value) => value?.type === MessageType.Next && bookSalesOf(value.payload)?.databaseId === "framed"),
    ).toHaveLength(0);
    expect(serialized.filter((value) => bookSalesOf(value)?.databaseId === "framed")).toHaveLength(1);
  } finally {
    stringify.mockRestore();
  }
  // Byte for byte the message graphql-ws's stringifyMessage makes, each with its subscription's id.
  expect(subscribers.map((subscriber) => subscriber.frames[1])).toEqual(
    ["a", "second-subscription", "3"].map((id) =>
      stringifyMessage({ id, type: MessageType.Next, payload: { data: { bookSales: { databaseId: "framed", purchaseCount: 1 } } } }),
    ),
  );
  for (const subscriber of subscribers) subscriber.close();
});

it("writes a shared value's field error as an HTTP answer codes it: data null, the error with its path and INTERNAL_SERVER_ERROR, nothing HTTP-only", async () => {
  await seedBook(database.db, "untitled", [], SETTINGS);
  // A book as a damaged write could leave it: the schema's non-null title fails, and the failure travels with the value.
  await salesCollection(database.db).updateOne({ _id: parseBookId("untitled") }, { $unset: { title: "" } });
  const subscriber = await rawSubscriber("damaged", `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId title } }`, {
    ids: ["untitled"],
  });
  await subscriber.frameCount(1);
  const message = parseMessage(subscriber.frames[0]!);
  expect(message).toMatchObject({ id: "damaged", type: MessageType.Next });
  const { payload } = message as { payload: { data?: unknown; errors?: Record<string, unknown>[] } };
  expect(payload.data).toBeNull();
  expect(payload.errors).toEqual([
    {
      message: "Cannot return null for non-nullable field Book.title.",
      locations: [{ line: 1, column: expect.any(Number) as number }],
      path: ["bookSales", "title"],
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    },
  ]);
  subscriber.close();
});
