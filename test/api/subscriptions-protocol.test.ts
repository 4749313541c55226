import { createHash } from "node:crypto";
import { once } from "node:events";
import { startOfflineServer } from "@bookstore/offline-mongo";
import { MongoClient } from "mongodb";
import { DEFAULT_SUBSCRIPTION_SETTINGS, type SubscriptionSettings } from "../../src/config";
import { MAX_JSON_DEPTH } from "../../src/graphql/limits/http";
import type { RunningServer } from "../../src/graphql/transport/server";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { messagesOf, rawSocket, subscribe, subscriptionClient } from "../support/subscriptions";
import { configuredTokens, tokenSpec, type TokenSpec } from "../support/tokens";

const reader = tokenSpec("protocol-reader", ["purchases:read"]);
const stranger = tokenSpec("protocol-stranger", ["purchases:read"]);
const storefront = { ...tokenSpec("protocol-storefront", ["purchases:read"]), trustedDocuments: true };
const tokens = configuredTokens(reader, storefront);

const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;
const SUBSCRIBE = { type: "subscribe", payload: { query: BOOK_SALES, variables: { ids: ["1"] } } };

let database: TestDatabase;
const servers: RunningServer[] = [];
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "1", customers(3));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database.close();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** The one document the storefront's token may subscribe with, as a persisted documents manifest names it. */
const TRUSTED_DOCUMENTS = new Map([[sha256(BOOK_SALES), BOOK_SALES]]);

/** The API on the replica set, with tokens configured and these subscription limits over the defaults. */
async function serve(limits: Partial<SubscriptionSettings> = {}, connectionInitWaitTimeoutMs?: number): Promise<RunningServer> {
  const server = await startTestHttpServer(database.db, {
    apiTokens: tokens,
    trustedDocuments: TRUSTED_DOCUMENTS,
    subscriptions: { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...limits },
    connectionInitWaitTimeoutMs,
  });
  servers.push(server);
  return server;
}

/** A bare socket that has sent connection_init and had it acknowledged. */
async function acknowledgedSocket(server: RunningServer) {
  const raw = await rawSocket(server.url);
  const messages = messagesOf(raw.socket);
  raw.send({ type: "connection_init", payload: { authorization: `Bearer ${reader.token}` } });
  await until(() => messages.some((message) => message.type === "connection_ack"));
  return { ...raw, messages };
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the graphql-transport-ws protocol, as graphql-ws's PROTOCOL.md has it", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({}, 300);
  });

  it("closes a connection that sends no connection_init in time with 4408", async () => {
    const { closed } = await rawSocket(server.url);
    expect(await closed).toBe(4408);
  });

  it("closes a connection that sends a second connection_init with 4429", async () => {
    const { send: sendMessage, closed } = await acknowledgedSocket(server);
    sendMessage({ type: "connection_init" });
    expect(await closed).toBe(4429);
  });

  it("closes a connection that subscribes before its connection_init is acknowledged with 4401", async () => {
    const { send: sendMessage, closed } = await rawSocket(server.url);
    sendMessage({ id: "a", ...SUBSCRIBE });
    expect(await closed).toBe(4401);
  });

  it("closes a connection that reuses the id of a running subscription with 4409", async () => {
    const { send: sendMessage, closed, messages } = await acknowledgedSocket(server);
    sendMessage({ id: "a", ...SUBSCRIBE });
    await until(() => messages.some((message) => message.type === "next"));
    sendMessage({ id: "a", ...SUBSCRIBE });
    expect(await closed).toBe(4409);
  });

  it("closes a connection whose token names no one with 4403, and lets one without a token in", async () => {
    const strangers = subscriptionClient(server.url, stranger);
    const refused = subscribe(strangers, BOOK_SALES, { ids: ["1"] });
    expect(((await refused.ended) as { code: number }).code).toBe(4403);
    await strangers.dispose();

    const anonymous = subscriptionClient(server.url);
    const sales = subscribe<{ bookSales: { purchaseCount: number } }>(anonymous, BOOK_SALES, { ids: ["1"] });
    expect((await sales.next()).data?.bookSales.purchaseCount).toBe(3);
    sales.stop();
    await anonymous.dispose();
  });

  it("closes a connection that sends a malformed message with 4400", async () => {
    const { send: sendMessage, closed } = await acknowledgedSocket(server);
    sendMessage("{ not json");
    expect(await closed).toBe(4400);
  });

  it("ends a subscription the client completes, and takes its id again for a new one", async () => {
    const { send: sendMessage, messages, socket } = await acknowledgedSocket(server);
    sendMessage({ id: "a", ...SUBSCRIBE });
    await until(() => messages.filter((message) => message.type === "next").length === 1);
    sendMessage({ id: "a", type: "complete" });
    await until(async () => (await scrapeMetrics(server)).sample("bookstore_subscriptions", 'field="bookSales"') === 0);
    sendMessage({ id: "a", ...SUBSCRIBE });
    await until(() => messages.filter((message) => message.type === "next").length === 2);
    expect(messages.filter((message) => message.type === "next").map((message) => message.id)).toEqual(["a", "a"]);
    expect(socket.readyState).toBe(socket.OPEN);
    socket.close();
  });

  it("pings an idle connection, so that a load balancer does not cut it", async () => {
    const pinging = await serve({ subscriptionKeepAliveSeconds: 1 });
    const { socket, messages, closed } = await acknowledgedSocket(pinging);
    // What came first for the idle socket: a ping, its close (a server that dropped it), or neither within ten of its 1 s
    // intervals (a margin for a busy machine). ws answers each ping with a pong by itself, as a browser does: a connection
    // that answers is kept, so three pings in a row, the socket open after them, say the pongs were heard too.
    const next = () =>
      Promise.race([
        once(socket, "ping").then(() => "ping"),
        closed.then((code) => `closed with ${code}`),
        new Promise((resolve) => setTimeout(resolve, 10_000, "no ping within 10 s")).then(String),
      ]);
    const pings = [await next(), await next(), await next()];
    expect(pings).toEqual(["ping", "ping", "ping"]);
    expect(socket.readyState).toBe(socket.OPEN);
    // Pings are WebSocket control frames: the protocol's messages saw nothing but the acknowledgement.
    expect(messages.map((message) => message.type)).toEqual(["connection_ack"]);
    socket.close();
  });
});

describe("what a subscription is refused, before anything runs", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve();
  });

  async function refusal(query: string, variables: Record<string, unknown> = {}): Promise<unknown[]> {
    const client = subscriptionClient(server.url);
    const subscription = subscribe(client, query, variables);
    const errors = (await subscription.ended) as { extensions?: { code?: string } }[];
    await client.dispose();
    return errors.map((error) => error.extensions?.code);
  }

  it.each([
    ["a query, which HTTP serves", `query { book(id: "1") { title } }`, {}, "GRAPHQL_VALIDATION_FAILED"],
    ["a field the schema lacks", `subscription { books { totalCount } }`, {}, "GRAPHQL_VALIDATION_FAILED"],
    ["unparsable text", `subscription {`, {}, "GRAPHQL_PARSE_FAILED"],
    [
      "more levels than the limit",
      `subscription { newBuyers(bookId: "1") { edge { node { booksPurchased { edges { node { customersPurchased { edges { node { booksPurchased { edges { node { title } } } } } } } } } } } } }`,
      {},
      "QUERY_TOO_DEEP",
    ],
    [
      "more cost than the limit",
      `subscription { bestsellers(top: 100) { customersPurchased(first: 100) { edges { node { booksPurchased(first: 100) { totalCount } } } } } }`,
      {},
      "QUERY_TOO_COMPLEX",
    ],
    [
      "a null @include condition",
      `subscription ($x: Boolean = true) { bookSales(ids: ["1"]) { title @include(if: $x) } }`,
      { x: null },
      "BAD_USER_INPUT",
    ],
  ])("%s", async (_case, query, variables, code) => {
    expect(await refusal(query, variables)).toEqual([code]);
  });
});

describe("the rules of HTTP requests, for subscribe messages", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve();
  });

  /** The codes and messages of the errors a subscription ends with, or its first value's data when it runs. */
  async function outcome(
    token: TokenSpec | undefined,
    query: string,
    variables: Record<string, unknown>,
    extensions?: Record<string, unknown>,
  ) {
    const client = subscriptionClient(server.url, token);
    const subscription = subscribe(client, query, variables, extensions);
    const first = await Promise.race([subscription.next().then((value) => ({ data: value.data })), subscription.ended]);
    await client.dispose();
    if (!Array.isArray(first)) return first;
    return (first as { message: string; extensions?: { code?: string } }[]).map((error) => [error.extensions?.code, error.message]);
  }
  /** An array nested `depth` levels around "x". */
  const nested = (depth: number): unknown => Array.from({ length: depth }).reduce<unknown>((inner) => [inner], "x");
  const byHash = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

  it(`refuses variables or extensions nested deeper than ${MAX_JSON_DEPTH} levels with BAD_USER_INPUT, as HTTP does`, async () => {
    // The variables object itself is the first of the levels.
    expect(await outcome(reader, BOOK_SALES, { ids: ["1"], deep: nested(MAX_JSON_DEPTH - 1) })).toEqual({
      data: { bookSales: { databaseId: "1", purchaseCount: 3 } },
    });
    const tooDeep = [["BAD_USER_INPUT", `Variables and extensions may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`]];
    expect(await outcome(reader, BOOK_SALES, { ids: ["1"], deep: nested(MAX_JSON_DEPTH) })).toEqual(tooDeep);
    expect(await outcome(reader, BOOK_SALES, { ids: ["1"] }, { deep: nested(MAX_JSON_DEPTH) })).toEqual(tooDeep);
  });

  it("refuses 6,000 levels of variables with BAD_USER_INPUT and keeps the connection", async () => {
    const { send: sendMessage, messages, socket } = await acknowledgedSocket(server);
    // As text: the client's own JSON.stringify would run out of stack first.
    const depth = 6_000;
    sendMessage(
      `{"id":"deep","type":"subscribe","payload":{"query":${JSON.stringify(BOOK_SALES)},"variables":{"ids":["1"],"deep":${"[".repeat(depth)}"x"${"]".repeat(depth)}}}}`,
    );
    await until(() => messages.some((message) => message.id === "deep"));
    const answer = messages.find((message) => message.id === "deep") as { type: string; payload: { extensions?: { code: string } }[] };
    expect([answer.type, answer.payload.map((entry) => entry.extensions?.code)]).toEqual(["error", ["BAD_USER_INPUT"]]);
    sendMessage({ id: "after", ...SUBSCRIBE });
    await until(() => messages.some((message) => message.type === "next" && message.id === "after"));
    socket.close();
  });

  it("holds a token marked for trusted documents to the manifest's, named by hash, as HTTP does", async () => {
    const answer = { data: { bookSales: { databaseId: "1", purchaseCount: 3 } } };
    expect(await outcome(storefront, "", { ids: ["1"] }, byHash(sha256(BOOK_SALES)))).toEqual(answer);
    // Apollo Client's GraphQLWsLink sends the text beside the hash: the manifest's document runs, never the text.
    expect(await outcome(storefront, "subscription { bestsellers { id } }", { ids: ["1"] }, byHash(sha256(BOOK_SALES)))).toEqual(answer);
    const refusals = await Promise.all([
      outcome(storefront, BOOK_SALES, { ids: ["1"] }),
      outcome(storefront, "", { ids: ["1"] }, byHash(sha256("subscription { bestsellers { id } }"))),
      outcome(storefront, "", { ids: ["1"] }),
    ]);
    expect(refusals).toEqual(
      [/this request sent a document$/, /this request named the hash \w+, which is not one of them/, /this request sent no hash$/].map(
        (message) => [["DOCUMENT_NOT_TRUSTED", expect.stringMatching(message)]],
      ),
    );
    // Every other token sends its documents as text.
    expect(await outcome(reader, `subscription { bestsellers(top: 1) { databaseId } }`, {})).toEqual({
      data: { bestsellers: [{ databaseId: "1" }] },
    });
  });
});

describe("authentication, which a connection does once", () => {
  it("outlives no token: a restart without it closes the connection with 1001, and the client's reconnect with it is refused 4403", async () => {
    const before = await serve();
    let restarted: () => void = () => {};
    const restart = new Promise<void>((resolve) => (restarted = resolve));
    // graphql-ws's client reconnects after a 1001 (going away), to the same URL, with connectionParams asked again.
    const closes: number[] = [];
    const client = subscriptionClient(before.url, reader, {
      retryAttempts: 1,
      retryWait: () => restart,
      on: { closed: (event) => void closes.push((event as { code: number }).code) },
    });
    const sales = subscribe<{ bookSales: { purchaseCount: number } }>(client, BOOK_SALES, { ids: ["1"] });
    expect((await sales.next()).data?.bookSales.purchaseCount).toBe(3);
    await before.stop();
    // The token rotated out: API_TOKENS is read at start-up, so a restart is how a token is removed.
    servers.push(await startTestHttpServer(database.db, { apiTokens: configuredTokens(storefront) }, Number(new URL(before.url).port)));
    restarted();
    expect(((await sales.ended) as { code: number }).code).toBe(4403);
    expect(closes).toEqual([1001, 4403]);
    await client.dispose();
  });
});

describe("the limits on subscriptions and connections", () => {
  it("refuses a connection's subscription past SUBSCRIPTIONS_PER_CONNECTION, and keeps the others", async () => {
    const server = await serve({ subscriptionsPerConnection: 2 });
    const client = subscriptionClient(server.url);
    const kept = [subscribe(client, BOOK_SALES, { ids: ["1"] }), subscribe(client, BOOK_SALES, { ids: ["1"] })];
    await Promise.all(kept.map((subscription) => subscription.next()));
    const refused = subscribe(client, BOOK_SALES, { ids: ["1"] });
    const errors = (await refused.ended) as { extensions?: { code?: string } }[];
    expect(errors.map((error) => error.extensions?.code)).toEqual(["TOO_MANY_SUBSCRIPTIONS"]);
    expect((await scrapeMetrics(server)).sample("bookstore_subscriptions", 'field="bookSales"')).toBe(2);
    await client.dispose();
  });

  it("refuses a subscription past SUBSCRIPTIONS_PER_PROCESS, whichever connection asks", async () => {
    const server = await serve({ subscriptionsPerProcess: 2 });
    const clients = [subscriptionClient(server.url), subscriptionClient(server.url), subscriptionClient(server.url)];
    await Promise.all(clients.slice(0, 2).map((client) => subscribe(client, BOOK_SALES, { ids: ["1"] }).next()));
    const refused = subscribe(clients[2]!, BOOK_SALES, { ids: ["1"] });
    const errors = (await refused.ended) as { extensions?: { code?: string } }[];
    expect(errors.map((error) => error.extensions?.code)).toEqual(["TOO_MANY_SUBSCRIPTIONS"]);
    await Promise.all(clients.map((client) => client.dispose()));
  });

  it("closes a connection without a token past ANONYMOUS_CONNECTIONS_PER_PROCESS with 1013, and still lets a token in", async () => {
    const server = await serve({ anonymousConnectionsPerProcess: 1 });
    const first = subscriptionClient(server.url);
    await subscribe(first, BOOK_SALES, { ids: ["1"] }).next();
    const second = subscriptionClient(server.url);
    const refused = subscribe(second, BOOK_SALES, { ids: ["1"] });
    expect(((await refused.ended) as { code: number }).code).toBe(1013);
    const withToken = subscriptionClient(server.url, reader);
    expect((await subscribe<{ bookSales: { purchaseCount: number } }>(withToken, BOOK_SALES, { ids: ["1"] }).next()).data).toBeDefined();
    await Promise.all([first, second, withToken].map((client) => client.dispose()));
  });
});

describe("on a standalone server, which has no change streams", () => {
  it("refuses every subscription with REPLICA_SET_REQUIRED, naming the fix", async () => {
    const standalone = await startOfflineServer();
    const client = await MongoClient.connect(standalone.uri);
    const db = client.db("standalone");
    await ensureSalesIndexes(db);
    const server = await startTestHttpServer(db);
    const subscriber = subscriptionClient(server.url);
    const errors = (await subscribe(subscriber, BOOK_SALES, { ids: ["1"] }).ended) as { message: string; extensions?: { code?: string } }[];
    expect(errors.map((error) => error.extensions?.code)).toEqual(["REPLICA_SET_REQUIRED"]);
    expect(errors[0]?.message).toMatch(/replica set/);
    await subscriber.dispose();
    await server.stop();
    await client.close();
    await standalone.stop();
  });
});
