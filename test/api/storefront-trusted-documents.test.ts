import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { readTrustedDocuments } from "../../src/auth/trusted-documents";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, getUrl, postOperation, send, startTestHttpServer, type HttpAnswer } from "../support/http";
import { subscribe, subscriptionClient, webSocketUrl } from "../support/subscriptions";
import { startStorefrontProxy, WEB_STOREFRONT, WEB_STOREFRONT_MANIFEST, type StorefrontProxy } from "../support/storefront-proxy";
import { scrapeMetrics } from "../support/metrics";
import { configuredTokens, tokenSpec } from "../support/tokens";

/**
 * The web storefront's proxy (examples/web-storefront/vite.config.ts) adds its token to whatever arrives. With the
 * token marked `"trustedDocuments": true` and the manifest `npm run codegen` writes, the API runs for it only the
 * storefront's own operations, by hash: through the proxy, anyone can do what the page does, and nothing more.
 */
const ROOT = join(__dirname, "..", "..");
const MANIFEST = WEB_STOREFRONT_MANIFEST;
// purchases:read for "customers also bought"; the shopper buys with their own token, so the storefront's writes nothing.
const storefront = { ...tokenSpec("storefront", ["purchases:read"]), trustedDocuments: true };
const staff = tokenSpec("staff", ["purchases:read", "catalog:write"]);

/** The manifest's operations by name, with variables each can run with: the queries and mutation over HTTP, the subscription over the WebSocket. */
const manifest = Object.entries(JSON.parse(readFileSync(MANIFEST, "utf8")) as Record<string, string>).map(([key, document]) => ({
  hash: key.replace(/^sha256:/, ""),
  type: /^(\w+) /.exec(document)![1]!,
  name: /^(?:query|mutation|subscription) (\w+)/.exec(document)![1]!,
}));
// The storefront's own operations; the `Shopper…` ones the page sends to /shopper/graphql with the shopper's token.
const trusted = manifest.filter(({ type, name }) => type !== "subscription" && !name.startsWith("Shopper"));
const shopperBuy = manifest.find(({ name }) => name === "ShopperBuy")!;
const liveSales = manifest.find(({ name }) => name === "StorefrontShelfSales")!;
const VARIABLES: Record<string, Record<string, unknown>> = {
  StorefrontShelf: { first: 10, orderBy: { field: "PURCHASE_COUNT", direction: "DESC" } },
  StorefrontBookPage: { id: "1" },
};
// The back office's operations, generated apart (codegen.yml) and so in no manifest the API is given.
const BACK_OFFICE_MANIFEST = join(WEB_STOREFRONT, "src", "back-office", "__generated__", "persisted-documents.json");
const backOffice = Object.entries(JSON.parse(readFileSync(BACK_OFFICE_MANIFEST, "utf8")) as Record<string, string>);

// Operations outside the manifest: what the curl sent, a storefront document sent as text, and every operation of the command-line example.
const cliOperations = readdirSync(join(ROOT, "examples", "storefront", "operations")).map((file) =>
  readFileSync(join(ROOT, "examples", "storefront", "operations", file), "utf8"),
);
const UNTRUSTED: [string, string][] = [
  ["another customer's history", `{ customer(id: "user00") { booksPurchased(first: 5) { edges { node { title } } } } }`],
  ["addBook", `mutation { addBook(input: { id: "999", title: "Planted", author: "Anyone" }) { book { id } } }`],
  ["a storefront operation sent as a document", JSON.parse(readFileSync(MANIFEST, "utf8"))[`sha256:${trusted[0]!.hash}`]],
  ...cliOperations.map((document): [string, string] => [
    `the command-line example's ${/(?:query|mutation) (\w+)/.exec(document)![1]}`,
    document,
  ]),
];

const byHash = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send(url, body, { headers: { "content-type": "application/json", ...headers } });

let database: TestDatabase;
let api: RunningServer;
let proxy: StorefrontProxy;
beforeAll(async () => {
  // A replica set: the storefront's subscription needs change streams.
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "1", customers(3));
  api = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(storefront, staff),
    trustedDocuments: readTrustedDocuments(MANIFEST),
  });
  proxy = await startStorefrontProxy(api.url, storefront.token);
});
afterAll(async () => {
  await proxy.stop();
  await api.stop();
  await database.close();
});

describe("the web storefront's token, through the example's proxy", () => {
  it.each(trusted.map(({ name, hash }) => [name, hash]))("runs the storefront's %s by its hash", async (name, hash) => {
    const answer = await post(proxy.url, { operationName: name, variables: VARIABLES[name], extensions: byHash(hash) });
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.json?.data).toBeTruthy();
  });

  it("finds the storefront's operations compiled before its first request: the manifest's queries and mutations at start-up, none by a request", async () => {
    const before = await scrapeMetrics(api);
    const compiledAtStartup = manifest.filter(({ type }) => type !== "subscription").length;
    expect(before.sample("bookstore_graphql_compiled_operations_total", 'at="startup"')).toBe(compiledAtStartup);
    const firstRequests = before.sample("bookstore_graphql_compiled_operations_total", 'at="first_request"');
    for (const { name, hash } of trusted)
      await post(proxy.url, { operationName: name, variables: VARIABLES[name], extensions: byHash(hash) });
    const after = await scrapeMetrics(api);
    expect(after.sample("bookstore_graphql_compiled_operations_total", 'at="first_request"')).toBe(firstRequests);
    await post(api.url, { query: `{ book(id: "1") { title } }` }, { authorization: `Bearer ${staff.token}` });
    const another = await scrapeMetrics(api);
    expect(another.sample("bookstore_graphql_compiled_operations_total", 'at="first_request"')).toBe(firstRequests! + 1);
  });

  it("runs the storefront's queries by hash with GET too", async () => {
    const shelf = trusted.find(({ name }) => name === "StorefrontShelf")!;
    const answer = await send(getUrl(proxy.url, { variables: VARIABLES.StorefrontShelf, extensions: byHash(shelf.hash) }), undefined, {
      method: "GET",
      headers: {},
    });
    expect([answer.status, answer.json?.errors]).toEqual([200, undefined]);
  });

  it.each(UNTRUSTED)("refuses %s with DOCUMENT_NOT_TRUSTED (403), by POST and GET, and runs nothing", async (_name, document) => {
    const answers: HttpAnswer[] = [
      await post(proxy.url, { query: document, variables: {} }),
      await send(getUrl(proxy.url, { query: document }), undefined, { method: "GET", headers: {} }),
    ];
    for (const answer of answers)
      expect([answer.status, errorCodes(answer), answer.json?.data]).toEqual([403, ["DOCUMENT_NOT_TRUSTED"], undefined]);
    const planted = await post(api.url, { query: `{ book(id: "999") { id } }` });
    expect(planted.json?.data).toEqual({ book: null });
  });

  it("holds no operation that reads who bought what: no buyers, no customer's history, no live buyers", () => {
    const documents = Object.values(JSON.parse(readFileSync(MANIFEST, "utf8")) as Record<string, string>);
    for (const field of ["customersPurchased", "purchasedBy", "newBuyers", "customer(", "nodes(", "node("])
      expect(documents.filter((document) => document.includes(field))).toEqual([]);
  });

  it("refuses the back office's buyers of a book, by hash and as a document, with DOCUMENT_NOT_TRUSTED", async () => {
    expect(backOffice.length).toBeGreaterThan(0);
    for (const [key, document] of backOffice) {
      const byItsHash = await post(proxy.url, { variables: { id: "1", buyers: 10 }, extensions: byHash(key.replace(/^sha256:/, "")) });
      const asText = await post(proxy.url, { query: document, variables: { id: "1", buyers: 10 } });
      for (const answer of [byItsHash, asText])
        expect([answer.status, errorCodes(answer), answer.json?.data]).toEqual([403, ["DOCUMENT_NOT_TRUSTED"], undefined]);
    }
  });

  it("records no purchase with the shopper's Buy sent under its token: it names no customer, and the token writes nothing", async () => {
    const before = await post(api.url, { query: `{ book(id: "1") { purchaseCount } }` });
    const answer = await post(proxy.url, {
      operationName: "ShopperBuy",
      variables: { bookId: "1", purchaseId: "trusted-documents-test-1" },
      extensions: byHash(shopperBuy.hash),
    });
    expect([answer.status, errorCodes(answer)]).toEqual([403, ["FORBIDDEN"]]);
    expect((await post(api.url, { query: `{ book(id: "1") { purchaseCount } }` })).json?.data).toEqual(before.json?.data);
  });

  it("refuses a hash the manifest lacks, and a request with neither document nor hash", async () => {
    const unknown = await post(proxy.url, { variables: {}, extensions: byHash("0".repeat(64)) });
    const empty = await post(proxy.url, { variables: {} });
    for (const answer of [unknown, empty]) expect([answer.status, errorCodes(answer)]).toEqual([403, ["DOCUMENT_NOT_TRUSTED"]]);
  });
});

describe("the web storefront's token over the proxy's WebSocket", () => {
  const BUY = `mutation ($customerId: ID!) { recordPurchase(input: { bookId: "1", customerId: $customerId }) { storedIn } }`;
  const NEW_BUYERS = `subscription ($bookId: ID!) { newBuyers(bookId: $bookId) { edge { node { databaseId } } } }`;

  it("runs the storefront's subscription by its hash", async () => {
    const client = subscriptionClient(proxy.url);
    const sales = subscribe<{ bookSales: { id: string; purchaseCount: number } }>(client, "", { ids: ["1"] }, byHash(liveSales.hash));
    try {
      // Bought until one is announced: the first purchase may land before the subscription listens.
      let announced = false;
      const first = sales.next().finally(() => (announced = true));
      for (let index = 0; !announced; index += 1) {
        await postOperation(api.url, BUY, { customerId: `live-${index}` }, staff);
        await sleep(200);
      }
      const event = await first;
      expect(event.errors).toBeUndefined();
      expect(event.data?.bookSales.purchaseCount).toBeGreaterThan(3);
    } finally {
      await client.dispose();
    }
  });

  it.each([
    ["a document of its own", NEW_BUYERS, undefined],
    ["a hash the manifest lacks", NEW_BUYERS, byHash("0".repeat(64))],
  ])(
    "refuses a subscription with %s with DOCUMENT_NOT_TRUSTED, so the proxy's token reached the socket",
    async (_name, query, extensions) => {
      const client = subscriptionClient(proxy.url);
      try {
        const refused = await subscribe(client, query, { bookId: "1" }, extensions).ended;
        expect((refused as { extensions?: { code?: string } }[]).map((error) => error.extensions?.code)).toEqual(["DOCUMENT_NOT_TRUSTED"]);
      } finally {
        await client.dispose();
      }
    },
  );

  it("opens a WebSocket from the page's own origin and refuses one from another site's page", async () => {
    const opened = async (origin: string) => {
      const socket = new WebSocket(webSocketUrl(proxy.url), "graphql-transport-ws", { origin });
      const outcome = await Promise.race([
        once(socket, "open").then(() => "opened"),
        once(socket, "unexpected-response").then(([, response]) => (response as { statusCode: number }).statusCode),
      ]);
      socket.terminate();
      return outcome;
    };
    expect([await opened(new URL(proxy.url).origin), await opened("https://another-site.example")]).toEqual(["opened", 404]);
  });
});

describe("everyone else, straight to the API", () => {
  it("serves an anonymous GET of a public query, and a token not marked for trusted documents any document", async () => {
    const query = `query Titles { books(first: 2) { edges { node { title } } } }`;
    const anonymous = await send(getUrl(api.url, { query }), undefined, { method: "GET", headers: {} });
    const other = await post(api.url, { query: UNTRUSTED[0]![1] }, { authorization: `Bearer ${staff.token}` });
    expect([anonymous.status, anonymous.json?.errors, other.json?.errors]).toEqual([200, undefined, undefined]);
  });
});
