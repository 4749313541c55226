import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { RunningServer } from "../../src/graphql/transport/server";
import { REFUSALS_PER_WINDOW } from "../../src/graphql/limits/client-budget";
import { REFUSED_DOCUMENTS, REQUEST_LIMITS } from "../../src/graphql/limits/operation";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { seedBook, storedPurchases } from "../support/factories";
import { closeAddressedClients, sendFrom, type AddressedAnswer } from "../support/from-address";
import { startTestHttpServer } from "../support/http";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

// Each client's budget of weighed documents (src/graphql/limits/client-budget.ts), through the API over HTTP, each
// client on an address of its own (127.0.0.2 and on). The budget here is one request at the document limit per
// window, refilling continuously: the second such request of a client is refused, and so is everything it sends until
// its budget can pay what was refused.

const WINDOW_SECONDS = 5;
const router = tokenSpec("router", ["purchases:read"]);
/** A token that sends for many users, whose refusals are counted apart from the router's documents. */
const manyUsers = tokenSpec("many-users", ["purchases:read"]);
/** A public page's token, held to trusted documents: every visitor of the page sends it. */
const page = { ...tokenSpec("page", ["purchases:read"]), trustedDocuments: true };
/** As many representations as the document limit lets in: a heavy request that weighs the whole budget. */
const HEAVY = {
  query: "query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { title } } }",
  variables: {
    r: Array.from({ length: REQUEST_LIMITS.maxDocuments }, (_, index) => ({ __typename: "Book", databaseId: String(index + 1) })),
  },
};
const HEAVY_HASH = createHash("sha256").update(HEAVY.query).digest("hex");
/** A light request (100 documents, the heavy lane's threshold): never counted. */
const LIGHT = {
  query: "query ($ids: [ID!]!) { nodes(ids: $ids) { id } }",
  variables: { ids: Array.from({ length: 100 }, (_, index) => Buffer.from(`Book:${index + 1}`).toString("base64")) },
};
/** A heavy request of a fifth of the document limit: 201 documents. */
const FIFTH = { query: HEAVY.query, variables: { r: HEAVY.variables.r.slice(0, 201) } };
/** One representation over the document limit: refused QUERY_TOO_COMPLEX, having cost its weighing. */
const OVER_LIMITS = { query: HEAVY.query, variables: { r: [...HEAVY.variables.r, { __typename: "Book", databaseId: "0" }] } };
const PURCHASE = { query: 'mutation { recordPurchase(input: { bookId: "7", customerId: "in-debt" }) { purchaseCount } }' };

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  await seedBook(database.db, "7", []);
  server = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(router, page),
    trustedDocuments: new Map([[HEAVY_HASH, HEAVY.query]]),
    clientBudget: {
      clientBudgetDocuments: REQUEST_LIMITS.maxDocuments,
      // A token's budget larger than an address's, so that a public page's token shows whose it is counted with.
      clientBudgetTokenDocuments: 2 * REQUEST_LIMITS.maxDocuments,
      clientBudgetSeconds: WINDOW_SECONDS,
    },
  });
});
afterAll(async () => {
  closeAddressedClients();
  await server?.stop();
  await database?.close();
});

const codesOf = (answer: AddressedAnswer) => (answer.json?.errors ?? []).map((error) => error.extensions?.code);

/** Spends the budget of `address`: one heavy request paid, the next refused. */
async function spend(address: string, headers?: Record<string, string>): Promise<AddressedAnswer> {
  const paid = await sendFrom(server.url, address, HEAVY, headers);
  expect([paid.status, codesOf(paid)]).toEqual([200, []]);
  return sendFrom(server.url, address, HEAVY, headers);
}

test("a client over its budget is refused 429 RATE_LIMITED with Retry-After, while another address is served", async () => {
  const refused = await spend("127.0.0.2");
  expect(refused.status).toBe(429);
  expect(codesOf(refused)).toEqual(["RATE_LIMITED"]);
  expect(refused.json?.errors?.[0]?.message).toMatch(/retry in \d+ s, and ask for less/);
  expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(refused.retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
  expect(refused.json?.data).toBeUndefined();

  // In debt, even its light requests are refused; another address is served meanwhile.
  const light = await sendFrom(server.url, "127.0.0.2", LIGHT);
  expect([light.status, codesOf(light)]).toEqual([429, ["RATE_LIMITED"]]);
  const other = await sendFrom(server.url, "127.0.0.3", HEAVY);
  expect([other.status, codesOf(other)]).toEqual([200, []]);
});

test("a client in debt is refused before its body is read: an unparsable body, one over the size limit, a purchase", async () => {
  await spend("127.0.0.4");
  // Parsed, the first would be 400 BAD_REQUEST and the second 413 PAYLOAD_TOO_LARGE.
  const unparsable = await sendFrom(server.url, "127.0.0.4", "{ not json");
  expect([unparsable.status, codesOf(unparsable)]).toEqual([429, ["RATE_LIMITED"]]);
  const oversized = await sendFrom(
    server.url,
    "127.0.0.4",
    JSON.stringify({ query: "{ __typename }", pad: "x".repeat(REQUEST_LIMITS.maxBodyBytes) }),
  );
  expect([oversized.status, codesOf(oversized)]).toEqual([429, ["RATE_LIMITED"]]);
  // Nothing half-written: the purchase refused is not stored.
  const purchase = await sendFrom(server.url, "127.0.0.4", PURCHASE);
  expect([purchase.status, codesOf(purchase)]).toEqual([429, ["RATE_LIMITED"]]);
  expect(await storedPurchases(database.db, "7")).toEqual([]);
});

test("the budget pays the refused request once the wait the refusal named is over", async () => {
  const refused = await spend("127.0.0.5");
  expect(refused.status).toBe(429);
  await sleep(Number(refused.retryAfter) * 1000 + 200);
  const again = await sendFrom(server.url, "127.0.0.5", HEAVY);
  expect([again.status, codesOf(again)]).toEqual([200, []]);
});

test("light requests are not counted: twenty of 100 documents from one address are all served", async () => {
  const answers = [];
  for (let sent = 0; sent < 20; sent += 1) answers.push(await sendFrom(server.url, "127.0.0.6", LIGHT));
  expect(answers.map(({ status }) => status)).toEqual(Array(20).fill(200));
});

test("a bearer token has a budget of its own, whatever address it sends from", async () => {
  await spend("127.0.0.7");
  const headers = { "content-type": "application/json", authorization: bearer(router) };
  const withToken = await sendFrom(server.url, "127.0.0.7", HEAVY, headers);
  expect([withToken.status, codesOf(withToken)]).toEqual([200, []]);
  const fromAnother = await sendFrom(server.url, "127.0.0.8", HEAVY, headers);
  expect([fromAnother.status, codesOf(fromAnother)]).toEqual([200, []]);
  // The token's budget is spent wherever it sends from: its third request at the document limit is refused.
  const elsewhere = await sendFrom(server.url, "127.0.0.8", HEAVY, headers);
  expect([elsewhere.status, codesOf(elsewhere)]).toEqual([429, ["RATE_LIMITED"]]);
});

test("a token held to trusted documents, a public page's, has an address's budget per address: one visitor does not spend the others'", async () => {
  const headers = { "content-type": "application/json", authorization: bearer(page) };
  const trusted = { variables: HEAVY.variables, extensions: { persistedQuery: { version: 1, sha256Hash: HEAVY_HASH } } };
  const paid = await sendFrom(server.url, "127.0.0.9", trusted, headers);
  expect([paid.status, codesOf(paid)]).toEqual([200, []]);
  const refused = await sendFrom(server.url, "127.0.0.9", trusted, headers);
  expect([refused.status, codesOf(refused)]).toEqual([429, ["RATE_LIMITED"]]);
  const otherVisitor = await sendFrom(server.url, "127.0.0.10", trusted, headers);
  expect([otherVisitor.status, codesOf(otherVisitor)]).toEqual([200, []]);
});

describe("with a budget of a long window", () => {
  const WINDOW = 30;
  let slow: RunningServer;
  beforeAll(async () => {
    slow = await startTestHttpServer(database.db, {
      apiTokens: configuredTokens(manyUsers),
      // A token's budget twice an address's: twice its refusals.
      clientBudget: { clientBudgetDocuments: REQUEST_LIMITS.maxDocuments, clientBudgetTokenDocuments: 2_000, clientBudgetSeconds: WINDOW },
    });
  });
  afterAll(() => slow?.stop());

  test("the budget refills continuously: a fifth of it is paid again after about a fifth of the window, not at the window's end", async () => {
    expect((await sendFrom(slow.url, "127.0.0.30", HEAVY)).status).toBe(200);
    const refused = await sendFrom(slow.url, "127.0.0.30", FIFTH);
    expect([refused.status, codesOf(refused)]).toEqual([429, ["RATE_LIMITED"]]);
    // 201 of 1,000 documents per 30 s come back in about 6 s; a window begun with the first request ended after 30.
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(WINDOW / 3);
    await sleep(Number(refused.retryAfter) * 1000 + 200);
    const paid = await sendFrom(slow.url, "127.0.0.30", FIFTH);
    expect([paid.status, codesOf(paid)]).toEqual([200, []]);
  });

  test(`requests refused as over the limits have a budget of their own: ${REFUSALS_PER_WINDOW} per window, then RATE_LIMITED`, async () => {
    const codes = [];
    for (let sent = 0; sent <= REFUSALS_PER_WINDOW; sent += 1) codes.push(codesOf(await sendFrom(slow.url, "127.0.0.31", OVER_LIMITS)));
    // Their documents (101 each) alone would have paid nine of them: the ninth is refused by the budget of refusals.
    expect(REFUSALS_PER_WINDOW * REFUSED_DOCUMENTS).toBeLessThan(REQUEST_LIMITS.maxDocuments - REFUSED_DOCUMENTS);
    expect(codes).toEqual([...Array(REFUSALS_PER_WINDOW).fill(["QUERY_TOO_COMPLEX"]), ["RATE_LIMITED"]]);
  });

  test("a token has as many times an address's refusals as its budget of documents is an address's: twice here", async () => {
    const headers = { "content-type": "application/json", authorization: bearer(manyUsers) };
    // Sent at once, so that none is refilled meanwhile.
    const answers = await Promise.all(
      Array.from({ length: 2 * REFUSALS_PER_WINDOW + 1 }, () => sendFrom(slow.url, "127.0.0.32", OVER_LIMITS, headers)),
    );
    const codes = answers.map((answer) => codesOf(answer).join()).sort();
    expect(codes).toEqual([...Array(2 * REFUSALS_PER_WINDOW).fill("QUERY_TOO_COMPLEX"), "RATE_LIMITED"]);
  });
});

describe("behind proxies named in TRUSTED_PROXIES", () => {
  const PROXY = "127.0.0.20";
  let proxied: RunningServer;
  beforeAll(async () => {
    proxied = await startTestHttpServer(database.db, {
      clientBudget: { clientBudgetDocuments: REQUEST_LIMITS.maxDocuments, clientBudgetTokenDocuments: 1_000, clientBudgetSeconds: 60 },
      trustedProxies: [PROXY],
    });
  });
  afterAll(() => proxied?.stop());

  const forwarded = (from: string, client: string) =>
    sendFrom(proxied.url, from, HEAVY, { "content-type": "application/json", "x-forwarded-for": client });

  test("each client the proxy forwards has a budget of its own", async () => {
    expect((await forwarded(PROXY, "203.0.113.1")).status).toBe(200);
    const refused = await forwarded(PROXY, "203.0.113.1");
    expect([refused.status, codesOf(refused)]).toEqual([429, ["RATE_LIMITED"]]);
    const other = await forwarded(PROXY, "203.0.113.2");
    expect([other.status, codesOf(other)]).toEqual([200, []]);
  });

  test("a sender that is not a named proxy is its own address, whatever X-Forwarded-For it claims", async () => {
    expect((await forwarded("127.0.0.21", "203.0.113.3")).status).toBe(200);
    const claimed = await forwarded("127.0.0.21", "203.0.113.4");
    expect([claimed.status, codesOf(claimed)]).toEqual([429, ["RATE_LIMITED"]]);
  });
});
