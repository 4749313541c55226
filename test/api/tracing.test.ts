import { createHash } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { BOOK_ID_ATTRIBUTE } from "../../src/observability/tracing";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { errorCodes, getUrl, send, type HttpAnswer } from "../support/http";
import { openTestDatabase } from "../support/database";
import { subscribe, subscriptionClient } from "../support/subscriptions";
import { bearer, tokenSpec } from "../support/tokens";
import type { FinishedSpan } from "../support/traced-api-process";

// A caller's W3C trace context: the trace the API must continue, and the span its own spans hang under.
const CALLER_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;
const BOOK_ID = "traced-book";
const CUSTOMER_ID = "customer-who-must-not-be-traced";

const MONGODB_SCOPE = "@opentelemetry/instrumentation-mongodb";

// Over jest's default limit (jest.config.js): each test starts the API as a process with OpenTelemetry's SDK loaded (three
// of them under NODE_DEBUG's million lines), CPU-bound work of 5 to 15 s on an idle 2-core machine, 36 s on a busy one, and
// 92 s for the three NODE_DEBUG starts on one running other developers' suites beside this one's three workers.
jest.setTimeout(180_000);

let api: ApiProcess | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

/** Adds the book, then buys it as a caller inside a trace of its own; resolves with the purchase's log line. */
async function buyTracedBook({ url, logged }: ApiProcess) {
  const added = await send(url, { query: `mutation { addBook(input: {id: "${BOOK_ID}", title: "Traced", author: "A"}) { id } }` });
  expect(added.json?.errors).toBeUndefined();
  const bought = await send(
    url,
    { query: `mutation Buy { recordPurchase(input: {bookId: "${BOOK_ID}", customerId: "${CUSTOMER_ID}"}) { book { purchaseCount } } }` },
    { headers: { "content-type": "application/json", traceparent: TRACEPARENT, "x-request-id": "traced-purchase" } },
  );
  expect(bought.json).toEqual({ data: { recordPurchase: { book: { purchaseCount: 1 } } } });
  return logged(/graphql request/, (line) => line.requestId === "traced-purchase");
}

/** Asks the traced process for its finished spans until the caller's trace holds its HTTP server span (which ends last). */
async function finishedSpansOfTrace(child: ApiProcess["child"]): Promise<FinishedSpan[]> {
  for (;;) {
    child.send("spans");
    const [spans] = (await once(child, "message")) as [FinishedSpan[]];
    if (spans.some((span) => span.traceId === CALLER_TRACE_ID && span.parentSpanId === CALLER_SPAN_ID)) return spans;
    await sleep(50);
  }
}

it("continues a caller's traceparent: one trace with the GraphQL operation and one span per database command, naming the book and never the customer", async () => {
  api = await startApiProcess("test/support/traced-api-process.ts", {}, { ipc: true });
  const logLine = await buyTracedBook(api);
  const spans = await finishedSpansOfTrace(api.child);

  const trace = spans.filter((span) => span.traceId === CALLER_TRACE_ID);
  const spansOfTheBook = spans.filter((span) => span.attributes[BOOK_ID_ATTRIBUTE] === BOOK_ID);
  const commands = trace.filter((span) => span.scope === MONGODB_SCOPE);
  // The request's server span hangs under the caller's, and every span of the purchase is in that one trace.
  expect(trace.filter((span) => span.parentSpanId === CALLER_SPAN_ID)).toHaveLength(1);
  expect(spansOfTheBook.every((span) => span.traceId === CALLER_TRACE_ID)).toBe(true);
  expect(trace).toContainEqual(expect.objectContaining({ attributes: expect.objectContaining({ "graphql.operation.name": "Buy" }) }));
  // As many command spans as the commands the request's log line counted, each naming the book.
  expect(commands.length).toBeGreaterThan(0);
  expect(commands).toHaveLength(logLine.databaseCommands as number);
  expect(commands.every((span) => span.attributes[BOOK_ID_ATTRIBUTE] === BOOK_ID)).toBe(true);
  // The compiled operation's span, which the resolver named the book on: what runs traced is what runs untraced.
  expect(spansOfTheBook.map((span) => span.name)).toContain("mutation Buy");
  expect(JSON.stringify(spans)).not.toContain(CUSTOMER_ID);
});

it("exports the trace over OTLP/HTTP to the endpoint OTEL_EXPORTER_OTLP_ENDPOINT names", async () => {
  const received: { path: string; contentType: string; body: Buffer }[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  try {
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    api = await startApiProcess("src/cli/start.ts", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "100" });
    await buyTracedBook(api);
    // The protobuf body carries the trace id as its 16 raw bytes, and attribute names as text.
    const traceIdBytes = Buffer.from(CALLER_TRACE_ID, "hex");
    const exported = () => Buffer.concat(received.map(({ body }) => body));
    while (!exported().includes(traceIdBytes) || !exported().includes(MONGODB_SCOPE)) await sleep(50);

    expect(await api.stop()).toBe(0);
    api = undefined;
    expect(received.map(({ path, contentType }) => [path, contentType])).toEqual(
      received.map(() => ["/v1/traces", "application/x-protobuf"]),
    );
    expect(exported().includes(BOOK_ID_ATTRIBUTE)).toBe(true);
    expect(exported().includes(CUSTOMER_ID)).toBe(false);
  } finally {
    receiver.close();
  }
});

// Node's own debug output names every module it loads, CommonJS or ES; prom-client always loads the API package, which does nothing without an SDK.
const OPENTELEMETRY_BEYOND_ITS_API = /node_modules\/@opentelemetry\/(?!api\/)/;

it("loads nothing of OpenTelemetry's SDK or instrumentations unless the environment asks for traces", async () => {
  const started = async (env: Record<string, string>) => {
    api = await startApiProcess("src/cli/start.ts", { NODE_DEBUG: "module,esm", ...env }, { keepStderr: OPENTELEMETRY_BEYOND_ITS_API });
    expect(await api.stop()).toBe(0);
    const { stderr } = api;
    api = undefined;
    return stderr;
  };
  expect(await started({})).toEqual([]);
  // The same probe sees them when traces are on, and OTEL_TRACES_EXPORTER=none keeps them off.
  expect(await started({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })).toEqual([]);
  expect((await started({ OTEL_TRACES_EXPORTER: "console" })).length).toBeGreaterThan(0);
});

/**
 * Personal data by every way a request can send it, each id unique so that a leak names its path: customer
 * and purchase ids in variables and as literals, by POST, by GET and as automatic persisted queries; a
 * purchaseId quoted by an error (PURCHASE_ID_CONFLICT); the caller's token.
 */
const SECRETS = {
  token: tokenSpec("traced-caller", ["catalog:write", "purchases:read"]),
  customerInPostVariables: "cust-post-variables-5a1f",
  purchaseInPostVariables: "purchase-post-variables-77c0",
  customerInPostLiteral: "cust-post-literal-0b9e",
  purchaseInPostLiteral: "purchase-post-literal-c3d2",
  customerInGetVariables: "cust-get-variables-6e4a",
  customerInGetLiteral: "cust-get-literal-19f7",
  customerInApq: "cust-apq-variables-d804",
  customerInApqByHash: "cust-apq-hash-2c6b",
  customerInApqMutation: "cust-apq-mutation-4b17",
  purchaseInApq: "purchase-apq-variables-90ad",
  purchaseInGet: "purchase-get-variables-e216",
  conflictingPurchase: "purchase-conflicting-8e35",
};
const BUY = `mutation Buy($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
  recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) { replayed }
}`;
const CUSTOMER = `query Customer($id: ID!) { customer(id: $id) { id } }`;

/** Sends each secret its way; every request carries the token. */
async function sendEverySecret(url: string): Promise<void> {
  const headers = { "content-type": "application/json", authorization: bearer(SECRETS.token) };
  const post = (body: unknown) => send(url, body, { headers });
  const get = (request: Parameters<typeof getUrl>[1]) => send(getUrl(url, request), undefined, { method: "GET", headers });
  const answered = async (answer: Promise<HttpAnswer>, codes: string[] = []) => expect(errorCodes(await answer)).toEqual(codes);
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });
  const persistedQuery = persisted(CUSTOMER);

  await answered(post({ query: `mutation { addBook(input: {id: "${BOOK_ID}", title: "Traced", author: "A"}) { id } }` }));
  const buy = (customerId: string, purchaseId: string) => post({ query: BUY, variables: { bookId: BOOK_ID, customerId, purchaseId } });
  await answered(buy(SECRETS.customerInPostVariables, SECRETS.purchaseInPostVariables));
  await answered(
    post({
      query: `mutation { recordPurchase(input: { bookId: "${BOOK_ID}", customerId: "${SECRETS.customerInPostLiteral}", purchaseId: "${SECRETS.purchaseInPostLiteral}" }) { replayed } }`,
    }),
  );
  await answered(get({ query: CUSTOMER, variables: { id: SECRETS.customerInGetVariables } }));
  await answered(get({ query: `{ customer(id: "${SECRETS.customerInGetLiteral}") { id } }` }));
  await answered(post({ query: CUSTOMER, variables: { id: SECRETS.customerInApq }, extensions: persistedQuery }));
  await answered(get({ variables: { id: SECRETS.customerInApqByHash }, extensions: persistedQuery }));
  // A purchase id by every path too: as an automatic persisted mutation, and by GET, refused there but traced all the same.
  await answered(
    post({
      query: BUY,
      variables: { bookId: BOOK_ID, customerId: SECRETS.customerInApqMutation, purchaseId: SECRETS.purchaseInApq },
      extensions: persisted(BUY),
    }),
  );
  await answered(get({ query: BUY, variables: { bookId: BOOK_ID, customerId: "by-get", purchaseId: SECRETS.purchaseInGet } }), [
    "BAD_REQUEST",
  ]);
  await answered(buy(SECRETS.customerInPostLiteral, SECRETS.conflictingPurchase));
  await answered(buy(SECRETS.customerInPostVariables, SECRETS.conflictingPurchase), ["PURCHASE_ID_CONFLICT"]);
}

/** An OTLP/HTTP receiver on a free port, keeping every body it is sent. */
async function startReceiver(): Promise<{ endpoint: string; exported(): Buffer; close(): void }> {
  const received: Buffer[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(Buffer.concat(chunks));
      response.writeHead(200, { "content-type": request.headers["content-type"] ?? "application/json" }).end();
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  return {
    endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    exported: () => Buffer.concat(received),
    close: () => receiver.close(),
  };
}

describe.each(["http/protobuf", "http/json"])("every byte exported over OTLP %s", (protocol) => {
  /** `npm start` exporting to `endpoint` in this protocol within 100 ms of each span, with the secret token configured. */
  const tracedApi = (endpoint: string, env: Record<string, string> = {}) =>
    startApiProcess("src/cli/start.ts", {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_BSP_SCHEDULE_DELAY: "100",
      API_TOKENS: JSON.stringify([SECRETS.token]),
      ...env,
    });

  // One process for both ways in, requests and subscriptions (subscriptions need change streams, so it runs on the run's
  // replica set): every start with OpenTelemetry's SDK loaded is seconds of CPU, and what it exported is read once it stopped.
  it("holds no customer id, purchase id, token, variable or literal, whichever way a request or a subscription sent them, errors and each delivered event included", async () => {
    const receiver = await startReceiver();
    const database = await openTestDatabase({ replicaSet: true });
    const buyers = ["cust-live-buyer-1-a93e", "cust-live-buyer-2-4f0b", "cust-live-buyer-3-7d21"];
    const hidden = { inVariables: "book-ws-variables-e5c8", inLiteral: "book-ws-literal-31fa" };
    try {
      api = await tracedApi(receiver.endpoint, { MONGODB_URI: process.env.TEST_REPLICA_SET_URI!, MONGODB_DB: database.db.databaseName });
      // Adds the book the subscription follows.
      await sendEverySecret(api.url);

      const headers = { "content-type": "application/json", authorization: bearer(SECRETS.token) };
      const client = subscriptionClient(api.url, SECRETS.token);
      const newBuyers = subscribe<{ newBuyers: { edge: { node: { databaseId: string } } } }>(
        client,
        `subscription LiveBuyers($bookId: ID!) { newBuyers(bookId: $bookId) { edge { node { databaseId } } } }`,
        { bookId: BOOK_ID },
      );
      // Books that do not exist: refused NOT_FOUND, whose message quotes the id sent, by variable and as a literal.
      const unknownBooks = [
        subscribe(client, `subscription Hidden($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`, { ids: [hidden.inVariables] }),
        subscribe(client, `subscription { bookSales(ids: ["${hidden.inLiteral}"]) { purchaseCount } }`),
      ];
      for (const unknown of unknownBooks) expect((await unknown.next()).errors?.[0]?.extensions?.["code"]).toBe("NOT_FOUND");
      await api.logged(/graphql subscription started/, (line) => line.operationName === "LiveBuyers");
      for (const customerId of buyers) {
        const bought = await send(api.url, { query: BUY, variables: { bookId: BOOK_ID, customerId } }, { headers });
        expect(errorCodes(bought)).toEqual([]);
      }
      const delivered: string[] = [];
      while (delivered.length < buyers.length) delivered.push((await newBuyers.next()).data!.newBuyers.edge.node.databaseId);
      expect(delivered).toEqual(buyers);
      await client.dispose();
      // Stopping exports what is still buffered.
      expect(await api.stop()).toBe(0);
      api = undefined;
      const exported = receiver.exported();

      // The requests' paths were traced: the GET's query string (its values redacted) and the conflict's exception (its type kept).
      expect(exported.includes("url.query")).toBe(true);
      expect(exported.includes("REDACTED")).toBe(true);
      expect(exported.includes("PURCHASE_ID_CONFLICT")).toBe(true);
      // The subscription's checks and each event it delivered are spans, named by the operation.
      const spansNamed = (name: string) => exported.toString("latin1").split(name).length - 1;
      // The three subscriptions' checks (graphql-ws's client names no operation in its message), and each buyer delivered.
      expect(spansNamed("graphql.subscribe")).toBe(3);
      expect(spansNamed("graphql.subscription.event LiveBuyers")).toBe(buyers.length);
      const secrets = {
        ...SECRETS,
        token: SECRETS.token.token,
        ...hidden,
        ...Object.fromEntries(buyers.map((buyer, index) => [`buyer${index}`, buyer])),
      };
      expect(Object.entries(secrets).filter(([, secret]) => exported.includes(secret))).toEqual([]);
    } finally {
      receiver.close();
      await database.close();
    }
  });
});
