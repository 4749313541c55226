import { MongoClient } from "mongodb";
import { StorefrontClient } from "../../examples/storefront/client";
import type { RunningServer } from "../../src/graphql/transport/server";
import { bookGlobalId } from "../../src/graphql/schema/global-ids";
import { startTestHttpServer } from "../support/http";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { configuredTokens, tokenSpec } from "../support/tokens";

let database: TestDatabase;
let server: RunningServer;
let storefront: StorefrontClient;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
  storefront = new StorefrontClient(server.url);
  await seedBook(database.db, "1", customers(3));
  await seedBook(database.db, "2", customers(1000));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

const origin = () => server.url.replace(/\/graphql$/, "");

describe("the example storefront client over HTTP", () => {
  it("lists books with their first few buyers", async () => {
    const { books } = await storefront.listBooks(10, 2);
    expect(books.totalCount).toBe(2);
    expect(
      books.edges.map(({ node }) => [
        node.databaseId,
        node.purchaseCount,
        node.customersPurchased.edges.map((edge) => edge.node.databaseId),
      ]),
    ).toEqual([
      ["1", 3, ["user00", "user01"]],
      ["2", 1000, ["user00", "user01"]],
    ]);
  });

  it("pages through one book's buyers into extra_sales", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const { book } = await storefront.bookBuyers("2", 100, after);
      seen.push(...book!.customersPurchased.edges.map((edge) => edge.node.databaseId));
      if (!book!.customersPurchased.pageInfo.hasNextPage) break;
      after = book!.customersPurchased.pageInfo.endCursor;
    }
    expect(seen).toEqual(customers(1000));
  });

  it("records a purchase and reports where it was stored", async () => {
    expect(await storefront.recordPurchase("1", "user03", "order-1/line-1")).toEqual({
      recordPurchase: {
        storedIn: "EMBEDDED",
        replayed: false,
        book: { id: bookGlobalId(1), databaseId: "1", purchaseCount: 4, hasExtras: false },
      },
    });
    expect(await storefront.recordPurchase("2", "user1000", "order-1/line-2")).toEqual({
      recordPurchase: {
        storedIn: "EXTRA_SALES",
        replayed: false,
        book: { id: bookGlobalId(2), databaseId: "2", purchaseCount: 1001, hasExtras: true },
      },
    });
  });

  it("retries a checkout with the same order line without buying twice", async () => {
    const first = await storefront.recordPurchase("1", "user04", "order-2/line-1");
    const retry = await storefront.recordPurchase("1", "user04", "order-2/line-1");
    expect(retry.recordPurchase).toEqual({ ...first.recordPurchase, replayed: true });
    expect(retry.recordPurchase.book.purchaseCount).toBe(first.recordPurchase.book.purchaseCount);
  });

  it("surfaces an error's stable code", async () => {
    await expect(storefront.recordPurchase("missing", "user00", "order-3/line-1")).rejects.toThrow(/^NOT_FOUND: /);
  });
});

describe("the example storefront client with credentials", () => {
  const checkout = tokenSpec("checkout", ["catalog:write", "purchases:read"]);
  let guarded: RunningServer;
  beforeAll(async () => {
    guarded = await startTestHttpServer(database.db, { production: true, apiTokens: configuredTokens(checkout) });
  });
  afterAll(() => guarded.stop());

  it("reads buyers and checks out with its bearer token", async () => {
    const client = new StorefrontClient(guarded.url, checkout.token);
    expect((await client.bookBuyers("1", 1)).book?.customersPurchased.edges).toEqual([
      { cursor: expect.any(String), node: { databaseId: "user00" } },
    ]);
    expect((await client.recordPurchase("1", "user05", "order-4/line-1")).recordPurchase.replayed).toBe(false);
  });

  it("is refused buyers without a token", async () => {
    await expect(new StorefrontClient(guarded.url).bookBuyers("1", 1)).rejects.toThrow(/^UNAUTHENTICATED: /);
  });
});

describe("the HTTP endpoints", () => {
  it("answers /healthz while the process is alive", async () => {
    const response = await fetch(`${origin()}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers /readyz with 200 while the database answers", async () => {
    const response = await fetch(`${origin()}/readyz`);
    expect(response.status).toBe(200);
  });

  it("refuses a form-encoded POST, which a cross-site form could send", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: `{"query":"{ books { totalCount } }"}`,
    });
    expect(response.status).toBe(400);
  });

  it("serves a GET query when the client sends a preflight-forcing header", async () => {
    const response = await fetch(`${server.url}?query=${encodeURIComponent('{ book(id: "1") { title } }')}`, {
      headers: { "apollo-require-preflight": "true" },
    });
    expect(await response.json()).toEqual({ data: { book: { title: "Seeded 1" } } });
  });
});

describe("readiness without a database", () => {
  it("answers /readyz with 503 while the database does not answer", async () => {
    // Port 1 is reserved and never has a MongoDB behind it.
    const unreachable = new MongoClient("mongodb://127.0.0.1:1/", { serverSelectionTimeoutMS: 200 });
    const isolated = await startTestHttpServer(unreachable.db("none"));
    try {
      const response = await fetch(isolated.url.replace(/\/graphql$/, "/readyz"));
      expect(response.status).toBe(503);
      expect((await fetch(isolated.url.replace(/\/graphql$/, "/healthz"))).status).toBe(200);
    } finally {
      await isolated.stop();
      await unreachable.close();
    }
  });
});
