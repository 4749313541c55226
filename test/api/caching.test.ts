import { createHash } from "node:crypto";
import { readConfig } from "../../src/config";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, withCommandCount, type TestDatabase } from "../support/database";
import { customers, seedBook, storedPurchases } from "../support/factories";
import { errorCodes, getUrl, postOperation, send, startTestHttpServer, type HttpAnswer } from "../support/http";
import { bearer, configuredTokens, tokenSpec, type TokenSpec } from "../support/tokens";

const reader = tokenSpec("reader", ["purchases:read"]);
const otherReader = tokenSpec("other-reader", ["purchases:read"]);
const checkout = tokenSpec("checkout", ["catalog:write", "purchases:read"]);
const apiTokens = configuredTokens(reader, otherReader, checkout);

const LISTING = `query Listing($first: Int) { books(first: $first) { totalCount edges { node { id: databaseId title author purchaseCount } } } }`;
const BUYERS = `query Buyers($id: ID!) { book(id: $id) { title customersPurchased(first: 100) { totalCount edges { node { id: databaseId } } } } }`;
const RECORD = `mutation Record($input: RecordPurchaseInput!) { recordPurchase(input: $input) { book { id: databaseId purchaseCount } } }`;

// Far longer than any of these tests takes on a busy machine: nothing expires while a test runs.
const LONG_MAX_AGE = { catalogMaxAgeSeconds: 600, responseCacheUrl: undefined };

let database: TestDatabase;
let cached: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  cached = await startTestHttpServer(database.db, { apiTokens, cache: LONG_MAX_AGE });
  for (const id of ["1", "2", "3"]) await seedBook(database.db, id, customers(3));
});
afterAll(async () => {
  await cached.stop();
  await database.close();
});

const buyersOf = (answer: HttpAnswer) =>
  (answer.json?.data as { book: { customersPurchased: { edges: { node: { id: string } }[] } } }).book.customersPurchased.edges.map(
    (edge) => edge.node.id,
  );
const post = (server: RunningServer, query: string, variables: Record<string, unknown>, token?: TokenSpec) =>
  postOperation(server.url, query, variables, token);
const withCommands = (request: () => Promise<HttpAnswer>) => withCommandCount(database.commands, request);

/** Starts a server for one test and stops it after, whatever the test's outcome. */
async function withServer(options: Parameters<typeof startTestHttpServer>[1], test: (server: RunningServer) => Promise<void>) {
  const server = await startTestHttpServer(database.db, options);
  try {
    await test(server);
  } finally {
    await server.stop();
  }
}

describe("Cache-Control", () => {
  it("lets any cache keep a public listing for CATALOG_MAX_AGE_SECONDS, 5 by default", async () => {
    await withServer({ apiTokens, cache: readConfig({}) }, async (server) => {
      const answer = await post(server, LISTING, { first: 2 });
      expect(answer.json?.errors).toBeUndefined();
      expect(answer.cacheControl).toBe("max-age=5, public");
    });
  });

  it("keeps an answer that selects customersPurchased to its caller", async () => {
    const answer = await post(cached, BUYERS, { id: "1" }, reader);
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.cacheControl).toBe("max-age=600, private");
  });

  it.each([
    ["purchasedBy", `{ book(id: "1") { purchasedBy(customerId: "user00") } }`],
    ["alsoBought", `{ book(id: "1") { alsoBought { sharedBuyers } } }`],
    ["customer", `{ customer(id: "user00") { id: databaseId } }`],
    ["booksPurchased", `{ customer(id: "user00") { booksPurchased { totalCount } } }`],
  ])("keeps an answer that selects %s to its caller", async (_field, query) => {
    const answer = await post(cached, query, {}, reader);
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.cacheControl).toBe("max-age=600, private");
  });

  it("tells browsers that answers differ by Authorization, so a browser shared by two users keeps each one's apart", async () => {
    const response = await fetch(cached.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: bearer(reader) },
      body: JSON.stringify({ query: BUYERS, variables: { id: "1" } }),
    });
    await response.text();
    expect(response.headers.get("vary")?.toLowerCase().split(/,\s*/)).toContain("authorization");
  });

  it("never lets a mutation's answer be stored", async () => {
    const answer = await post(cached, RECORD, { input: { bookId: "3", customerId: "no-store" } }, checkout);
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.cacheControl).toBe("no-store");
  });

  it("stores nothing with CATALOG_MAX_AGE_SECONDS=0: every listing says no-store and reads the database", async () => {
    await withServer({ apiTokens, cache: readConfig({ CATALOG_MAX_AGE_SECONDS: "0" }) }, async (server) => {
      const answers = [
        await withCommands(() => post(server, LISTING, { first: 2 })),
        await withCommands(() => post(server, LISTING, { first: 2 })),
      ];
      for (const [answer, commands] of answers) {
        expect(answer.cacheControl).toBe("no-store");
        expect(commands).toBeGreaterThan(0);
      }
    });
  });
});

describe("the response cache", () => {
  it("answers a repeated public listing within the max age with 0 database commands", async () => {
    const [first, firstCommands] = await withCommands(() => post(cached, LISTING, { first: 3 }));
    const [repeated, repeatedCommands] = await withCommands(() => post(cached, LISTING, { first: 3 }));

    expect(firstCommands).toBeGreaterThan(0);
    expect(repeatedCommands).toBe(0);
    expect(repeated.json).toEqual(first.json);
    expect(repeated.cacheControl).toBe("max-age=600, public");
  });

  it("keeps a private answer for its own token and never gives it to another", async () => {
    await post(cached, BUYERS, { id: "2" }, reader);

    const [again, againCommands] = await withCommands(() => post(cached, BUYERS, { id: "2" }, reader));
    const [other, otherCommands] = await withCommands(() => post(cached, BUYERS, { id: "2" }, otherReader));
    const anonymous = await post(cached, BUYERS, { id: "2" });

    expect(againCommands).toBe(0);
    // Another token's: read from the database for it alone.
    expect(otherCommands).toBeGreaterThan(0);
    expect(buyersOf(other)).toEqual(buyersOf(again));
    expect(errorCodes(anonymous)).toEqual(["UNAUTHENTICATED"]);
  });
});

describe("reading your own writes through the response cache", () => {
  const countOf = (answer: HttpAnswer, id: string) =>
    (answer.json?.data as { books: { edges: { node: { id: string; purchaseCount: number } }[] } }).books.edges.find(
      (edge) => edge.node.id === id,
    )?.node.purchaseCount;

  it("reads a cached public listing again after recordPurchase, which it shows, and caches it again", async () => {
    const before = await post(cached, LISTING, { first: 1 });
    const [, hitCommands] = await withCommands(() => post(cached, LISTING, { first: 1 }));

    const recorded = await post(cached, RECORD, { input: { bookId: "1", customerId: "fresh" } }, checkout);
    const [after, afterCommands] = await withCommands(() => post(cached, LISTING, { first: 1 }));
    const [, againCommands] = await withCommands(() => post(cached, LISTING, { first: 1 }));

    expect(recorded.json?.data).toEqual({ recordPurchase: { book: { id: "1", purchaseCount: countOf(before, "1")! + 1 } } });
    expect(countOf(after, "1")).toBe(countOf(before, "1")! + 1);
    expect([hitCommands, afterCommands > 0, againCommands]).toEqual([0, true, 0]);
  });

  it("shows the purchase in the purchaser's cached private answers and in every other token's", async () => {
    for (const token of [checkout, reader]) await post(cached, BUYERS, { id: "2" }, token);
    const [, hitCommands] = await withCommands(() => post(cached, BUYERS, { id: "2" }, checkout));

    await post(cached, RECORD, { input: { bookId: "2", customerId: "newcomer" } }, checkout);
    const own = await post(cached, BUYERS, { id: "2" }, checkout);
    const others = await post(cached, BUYERS, { id: "2" }, reader);

    expect(hitCommands).toBe(0);
    expect(buyersOf(own)).toContain("newcomer");
    expect(buyersOf(others)).toEqual(buyersOf(own));
  });

  it("shows a purchase by GET as by POST, by a token and anonymously", async () => {
    const get = (token?: TokenSpec) =>
      send(getUrl(cached.url, { query: LISTING, variables: { first: 3 } }), undefined, {
        method: "GET",
        headers: token ? { authorization: bearer(token) } : {},
      });
    const reads = () => Promise.all([get(), get(reader), post(cached, LISTING, { first: 3 }), post(cached, LISTING, { first: 3 }, reader)]);
    const before = await reads();

    await post(cached, RECORD, { input: { bookId: "3", customerId: "by-every-way" } }, checkout);
    const after = await reads();

    expect(after.map((answer) => countOf(answer, "3"))).toEqual(before.map((answer) => countOf(answer, "3")! + 1));
  });
});

describe("queries by GET", () => {
  it("serves a query with variables, with no preflight-forcing header, and says how long it may be cached", async () => {
    const answer = await send(getUrl(cached.url, { query: LISTING, variables: { first: 2 } }), undefined, { method: "GET", headers: {} });
    expect(answer.status).toBe(200);
    expect((answer.json?.data as { books: { edges: unknown[] } }).books.edges).toHaveLength(2);
    expect(answer.cacheControl).toBe("max-age=600, public");
  });

  it("serves a query by its automatic persisted query hash once registered, so the URL stays short", async () => {
    const query = `query ByHash($id: ID!) { book(id: $id) { title author } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash("sha256").update(query).digest("hex") } };
    const get = (request: Parameters<typeof getUrl>[1]) => send(getUrl(cached.url, request), undefined, { method: "GET", headers: {} });

    const unknown = await get({ variables: { id: "1" }, extensions });
    const registered = await get({ query, variables: { id: "1" }, extensions });
    const byHash = await get({ variables: { id: "2" }, extensions });

    expect(errorCodes(unknown)).toEqual(["PERSISTED_QUERY_NOT_FOUND"]);
    expect(registered.json).toEqual({ data: { book: { title: "Seeded 1", author: "A" } } });
    expect(byHash.json).toEqual({ data: { book: { title: "Seeded 2", author: "A" } } });
    expect(byHash.cacheControl).toBe("max-age=600, public");
  });

  it("serves every order and a search of the catalog by persisted query hash, publicly cacheable", async () => {
    const query = `query Browse($orderBy: BookOrder, $search: String, $filter: BookFilter) {
      books(first: 10, orderBy: $orderBy, search: $search, filter: $filter) { edges { node { id: databaseId } } }
    }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash("sha256").update(query).digest("hex") } };
    const get = (request: Parameters<typeof getUrl>[1]) => send(getUrl(cached.url, request), undefined, { method: "GET", headers: {} });
    expect((await get({ query, variables: {}, extensions })).status).toBe(200);

    const ids = (answer: HttpAnswer) =>
      (answer.json?.data as { books: { edges: { node: { id: string } }[] } }).books.edges.map((edge) => edge.node.id);
    // Other tests here buy book 3, so the purchase counts are checked by the order they give, not by fixed ids.
    const counts = async (orderBy: { field: string; direction: string }) => {
      const answer = await post(cached, `query ($orderBy: BookOrder) { books(orderBy: $orderBy) { edges { node { purchaseCount } } } }`, {
        orderBy,
      });
      return (answer.json?.data as { books: { edges: { node: { purchaseCount: number } }[] } }).books.edges.map(
        (edge) => edge.node.purchaseCount,
      );
    };
    const browses = [
      ...["ID", "TITLE", "YEAR"].flatMap((field) => [
        [{ orderBy: { field, direction: "ASC" } }, ["1", "2", "3"]],
        [{ orderBy: { field, direction: "DESC" } }, ["3", "2", "1"]],
      ]),
      [{ search: "seeded 2" }, ["2"]],
      [{ search: "seed", orderBy: { field: "TITLE", direction: "DESC" } }, ["3", "2", "1"]],
      [{ filter: { author: "A" } }, ["1", "2", "3"]],
    ] as const;
    for (const [variables, expected] of browses) {
      const answer = await get({ variables, extensions });
      expect(answer.json?.errors).toBeUndefined();
      expect(ids(answer)).toEqual(expected);
      expect(answer.cacheControl).toBe("max-age=600, public");
    }
    for (const direction of ["ASC", "DESC"]) {
      const answer = await get({ variables: { orderBy: { field: "PURCHASE_COUNT", direction } }, extensions });
      expect(answer.cacheControl).toBe("max-age=600, public");
      expect(ids(answer)).toHaveLength(3);
      const shown = await counts({ field: "PURCHASE_COUNT", direction });
      expect(shown).toEqual([...shown].sort((a, b) => (direction === "ASC" ? a - b : b - a)));
    }
  });

  it("refuses a mutation by GET with a coded error, and records nothing", async () => {
    const url = getUrl(cached.url, { query: RECORD, variables: { input: { bookId: "3", customerId: "by-get" } } });
    const answer = await send(url, undefined, { method: "GET", headers: { authorization: bearer(checkout) } });

    expect(answer.status).toBe(405);
    expect(errorCodes(answer)).toEqual(["BAD_REQUEST"]);
    expect(answer.cacheControl).toBe("no-store");
    expect(await storedPurchases(database.db, "3")).not.toContain("by-get");
  });
});
