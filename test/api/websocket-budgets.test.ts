import { once } from "node:events";
import WebSocket from "ws";
import { DEFAULT_SUBSCRIPTION_SETTINGS, type SubscriptionSettings } from "../../src/config";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { closeAddressedClients, sendFrom } from "../support/from-address";
import { startTestHttpServer } from "../support/http";
import { messagesOf, webSocketUrl } from "../support/subscriptions";
import { bearer, configuredTokens, tokenSpec, type TokenSpec } from "../support/tokens";

/** The token the storefront's proxy adds to every visitor's requests and sockets: a public page's, held to trusted documents. */
const storefront = { ...tokenSpec("budgets-storefront", ["purchases:read"]), trustedDocuments: true };
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;

let database: TestDatabase;
const servers: RunningServer[] = [];
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "1", customers(3));
});
afterAll(async () => {
  closeAddressedClients();
  await Promise.all(servers.map((server) => server.stop()));
  await database.close();
});

/** The API behind a proxy on this machine (TRUSTED_PROXIES), with budgets that refill over an hour: nothing is paid back during a test. */
async function serve(limits: Partial<SubscriptionSettings> = {}): Promise<RunningServer> {
  const server = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(storefront),
    trustedDocuments: new Map(),
    trustedProxies: ["127.0.0.1"],
    subscriptions: { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...limits },
    clientBudget: { clientBudgetDocuments: 1_000, clientBudgetTokenDocuments: 1_000, clientBudgetSeconds: 3_600 },
  });
  servers.push(server);
  return server;
}

/** A socket as the proxy opens it for a visitor at `visitor`: X-Forwarded-For, and the token if given; its ack, or its close code. */
async function connect(server: RunningServer, visitor: string, token: TokenSpec | null = storefront) {
  const headers: Record<string, string> = { "x-forwarded-for": visitor, ...(token ? { authorization: bearer(token) } : {}) };
  const socket = new WebSocket(webSocketUrl(server.url), "graphql-transport-ws", { headers });
  const closed = once(socket, "close").then(([code]) => code as number);
  const messages = messagesOf(socket);
  await once(socket, "open");
  socket.send(JSON.stringify({ type: "connection_init" }));
  // Waits for whichever comes first, and stops polling once the socket is closed: a poll left running kept jest alive.
  const acked = () => messages.some((message) => message.type === "connection_ack");
  await until(() => acked() || socket.readyState === WebSocket.CLOSED);
  const outcome = acked() ? "ack" : await closed;
  return { socket, messages, closed, outcome };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Subscribes on `socket` as `id` and waits for its first answer: the error codes, or "next". */
async function answerTo(
  { socket, messages }: { socket: WebSocket; messages: Record<string, unknown>[] },
  id: string,
  query: string,
  variables = {},
) {
  socket.send(JSON.stringify({ id, type: "subscribe", payload: { query, variables } }));
  await until(() => messages.some((message) => message.id === id) || socket.readyState !== WebSocket.OPEN);
  const answer = messages.find((message) => message.id === id);
  if (answer?.type !== "error") return answer?.type;
  return (answer.payload as { extensions?: { code?: string } }[]).map((error) => error.extensions?.code).join();
}

describe("connections per client address (CONNECTIONS_PER_ADDRESS), the forwarded one behind a trusted proxy", () => {
  it("closes a visitor's third connection with 1013 though the proxy gives each one the storefront's token, and lets other visitors in", async () => {
    const server = await serve({ connectionsPerAddress: 2 });
    const first = await connect(server, "203.0.113.7");
    const second = await connect(server, "203.0.113.7");
    expect([first.outcome, second.outcome]).toEqual(["ack", "ack"]);
    expect((await connect(server, "203.0.113.7")).outcome).toBe(1013);
    // Without the token, the same address is no new client.
    expect((await connect(server, "203.0.113.7", null)).outcome).toBe(1013);
    const neighbour = await connect(server, "203.0.113.8");
    expect(neighbour.outcome).toBe("ack");
    // A connection that closes makes room for another, once the server has seen it close.
    first.socket.close();
    await first.closed;
    let again = await connect(server, "203.0.113.7");
    for (let attempt = 0; again.outcome !== "ack" && attempt < 20; attempt += 1) again = await connect(server, "203.0.113.7");
    expect(again.outcome).toBe("ack");
    for (const { socket } of [second, neighbour, again]) socket.close();
  });
});

describe("a client's budget, the same for its subscriptions as for its HTTP requests", () => {
  it("refuses a client's refused subscriptions past its refusals with RATE_LIMITED, then closes it 1013 and refuses its HTTP requests 429", async () => {
    const server = await serve();
    const client = await connect(server, "198.51.100.4", null);
    const answers: unknown[] = [];
    for (let i = 0; i < 9; i += 1) answers.push(await answerTo(client, `bad-${i}`, `subscription { missing }`));
    expect(answers.slice(0, 8)).toEqual(Array.from({ length: 8 }, () => "GRAPHQL_VALIDATION_FAILED"));
    expect(answers.slice(8)).toEqual(["RATE_LIMITED"]);
    // In debt, its next subscription closes the connection, a new one is refused, and so is its next HTTP request.
    client.socket.send(JSON.stringify({ id: "after", type: "subscribe", payload: { query: BOOK_SALES, variables: { ids: ["1"] } } }));
    expect(await client.closed).toBe(1013);
    expect((await connect(server, "198.51.100.4", null)).outcome).toBe(1013);
    const http = await sendFrom(
      server.url,
      "127.0.0.1",
      { query: "{ __typename }" },
      {
        "content-type": "application/json",
        "x-forwarded-for": "198.51.100.4",
      },
    );
    expect(http.status).toBe(429);
  });
});

describe("a heavy subscription", () => {
  it("pays its documents from its client's budget, as a heavy HTTP request does, and is refused RATE_LIMITED once it cannot", async () => {
    const reader = tokenSpec("budgets-reader", ["purchases:read"]);
    const server = await startTestHttpServer(database.db, {
      apiTokens: configuredTokens(reader),
      clientBudget: { clientBudgetDocuments: 1_000, clientBudgetTokenDocuments: 1_000, clientBudgetSeconds: 3_600 },
    });
    servers.push(server);
    const ids = Array.from({ length: 60 }, (_, index) => `heavy-${index}`);
    for (const id of ids) await seedBook(database.db, id, customers(1));
    // 60 windows of buyers, two extra_sales pages each at most: 120 documents, over the light requests' 100.
    const heavy = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { customersPurchased(first: 5) { totalCount } } }`;
    const client = await connect(server, "198.51.100.9", reader);
    const answers: unknown[] = [];
    for (let i = 0; i < 9; i += 1) answers.push(await answerTo(client, `heavy-${i}`, heavy, { ids }));
    // 1,000 documents pay for eight of them; the ninth finds the budget short.
    expect(answers).toEqual([...Array.from({ length: 8 }, () => "next"), "RATE_LIMITED"]);
  });
});
