import { spawn } from "node:child_process";
import { once } from "node:events";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { print } from "graphql";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestApi, type ExecutionResult, type TestApi } from "../support/api";
import { openTestDatabase } from "../support/database";
import { customers, RECORD_PURCHASE, seedBook, storedPurchases } from "../support/factories";
import { freePort, startTestHttpServer } from "../support/http";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

const HTTP_STATUS: Record<string, number> = { UNAUTHENTICATED: 401, FORBIDDEN: 403 };

const reader = tokenSpec("storefront", ["purchases:read"]);
const writer = tokenSpec("checkout", ["catalog:write"]);
const stranger = tokenSpec("stranger", ["purchases:read", "catalog:write"]);
const tokens = configuredTokens(reader, writer);

const BUYERS = `query ($id: ID!) { book(id: $id) { title customersPurchased(first: 5) { totalCount edges { node { id: databaseId } } } } }`;
const ADD_BOOK = `mutation ($input: AddBookInput!) { addBook(input: $input) { id: databaseId } }`;

/** Each refused caller, with the code it gets for a field it may not use and the Authorization header it sends. */
const refusedReaders: [string, string, string | undefined][] = [
  ["no credential", "UNAUTHENTICATED", undefined],
  ["an unknown token", "UNAUTHENTICATED", bearer(stranger)],
  ["a malformed Authorization header", "UNAUTHENTICATED", `Token ${reader.token}`],
  ["a token without purchases:read", "FORBIDDEN", bearer(writer)],
];
const refusedWriters: [string, string, string | undefined][] = [
  ["no credential", "UNAUTHENTICATED", undefined],
  ["an unknown token", "UNAUTHENTICATED", bearer(stranger)],
  ["a malformed Authorization header", "UNAUTHENTICATED", `Bearer ${writer.token} extra`],
  ["a token without catalog:write", "FORBIDDEN", bearer(reader)],
];

let api: TestApi;
beforeAll(async () => {
  api = await openTestApi({ apiTokens: tokens });
  await seedBook(api.db, "1", customers(3));
});
afterAll(() => api.close());

/** What a refusal must look like: one error with the code, no data at all, and no trace of a buyer anywhere. */
function expectRefused(result: ExecutionResult<unknown>, code: string): void {
  expect(result.errors?.map((error) => error.extensions?.code)).toEqual([code]);
  expect(result.data).toBeUndefined();
  expect(JSON.stringify(result)).not.toMatch(/user0\d|storefront|checkout/);
}

describe("reading the catalog", () => {
  it("is open to anonymous callers: books, titles, counts and salesStats", async () => {
    const result = await api.execute(
      `{ books(first: 5) { totalCount edges { node { id: databaseId title author purchaseCount hasExtras } } } salesStats { books outliers } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      books: { totalCount: 1, edges: [{ node: { id: "1", title: "Seeded 1", author: "A", purchaseCount: 3, hasExtras: false } }] },
      salesStats: { books: 1, outliers: 0 },
    });
  });
});

describe("Book.customersPurchased", () => {
  it("lists the buyers to a token with purchases:read", async () => {
    const result = await api.withAuthorization(bearer(reader)).execute(BUYERS, { id: "1" });
    expect(result).toEqual({
      data: { book: { title: "Seeded 1", customersPurchased: { totalCount: 3, edges: customers(3).map((id) => ({ node: { id } })) } } },
    });
  });

  it.each(refusedReaders)("is refused to %s with %s, revealing no buyer", async (_caller, code, authorization) => {
    const result = await api.withAuthorization(authorization).execute(BUYERS, { id: "1" });
    expectRefused(result, code);
  });

  it("refuses the whole query that asks for it, before any database command, pointing at the field", async () => {
    api.commands.reset();
    const query = `{ books { totalCount } salesStats { books } book(id: "1") { title customersPurchased { totalCount } } }`;
    const result = await api.execute(query);
    expectRefused(result, "UNAUTHENTICATED");
    expect(result.errors?.[0]?.locations).toEqual([{ line: 1, column: query.indexOf("customersPurchased") + 1 }]);
    expect(api.commands.names()).toEqual([]);
  });

  it.each([
    ["a fragment", `query { book(id: "1") { ...Buyers } } fragment Buyers on Book { customersPurchased { totalCount } }`, {}],
    ["an inline fragment", `query { book(id: "1") { ... on Book { customersPurchased { totalCount } } } }`, {}],
    [
      "an @include that variables turn on",
      `query ($all: Boolean!) { book(id: "1") { customersPurchased @include(if: $all) { totalCount } } }`,
      { all: true },
    ],
    ["salesStats' largest books", `{ salesStats { largestBooks { customersPurchased { totalCount } } } }`, {}],
  ])("is found and refused through %s", async (_route, query, variables) => {
    expectRefused(await api.execute(query, variables), "UNAUTHENTICATED");
  });

  it("is not needed where @skip or @include leave it out", async () => {
    const result = await api.execute(
      `query ($all: Boolean!) { book(id: "1") { title customersPurchased @include(if: $all) { totalCount } } }`,
      { all: false },
    );
    expect(result).toEqual({ data: { book: { title: "Seeded 1" } } });
  });

  it("is checked with each request's own variables when the same query text comes again", async () => {
    const query = `query ($all: Boolean!) { book(id: "1") { title customersPurchased @include(if: $all) { purchaseCount: totalCount } } }`;
    expect(await api.execute(query, { all: false })).toEqual({ data: { book: { title: "Seeded 1" } } });
    expectRefused(await api.execute(query, { all: true }), "UNAUTHENTICATED");
    expect(await api.execute(query, { all: false })).toEqual({ data: { book: { title: "Seeded 1" } } });
  });
});

describe.each([
  ["addBook", ADD_BOOK, { input: { id: "refused", title: "T", author: "A" } }],
  ["recordPurchase", print(RECORD_PURCHASE), { bookId: "1", customerId: "intruder" }],
])("%s", (_mutation, document, variables) => {
  it.each(refusedWriters)("is refused to %s with %s before any database command", async (_caller, code, authorization) => {
    api.commands.reset();
    const result = await api.withAuthorization(authorization).execute(document, variables);
    expectRefused(result, code);
    expect(api.commands.names()).toEqual([]);
  });

  it("leaves the catalog as it was after every refusal", async () => {
    expect(await api.db.collection("sales").countDocuments()).toBe(1);
    expect(await storedPurchases(api.db, "1")).toEqual(customers(3));
  });
});

describe("a token with catalog:write", () => {
  const checkout = () => api.withAuthorization(bearer(writer));

  it("adds a book and records a purchase", async () => {
    expect((await checkout().execute(ADD_BOOK, { input: { id: "new", title: "T", author: "A" } })).errors).toBeUndefined();
    const purchase = await checkout().execute(RECORD_PURCHASE, { bookId: "new", customerId: "buyer-1" });
    expect(purchase.errors).toBeUndefined();
    expect(await storedPurchases(api.db, "new")).toEqual(["buyer-1"]);
  });
});

describe("open mode, when no tokens are configured", () => {
  it("lets anonymous callers read buyers and write", async () => {
    const open = await openTestApi();
    try {
      await seedBook(open.db, "1", customers(2));
      expect((await open.execute(BUYERS, { id: "1" })).data).toEqual({
        book: { title: "Seeded 1", customersPurchased: { totalCount: 2, edges: customers(2).map((id) => ({ node: { id } })) } },
      });
      expect((await open.execute(RECORD_PURCHASE, { bookId: "1", customerId: "user02" })).errors).toBeUndefined();
      expect(await storedPurchases(open.db, "1")).toEqual(customers(3));
    } finally {
      await open.close();
    }
  });
});

describe("over HTTP", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestHttpServer(api.db, { production: true, apiTokens: tokens });
  });
  afterAll(() => server.stop());

  async function post(query: string, variables: Record<string, unknown>, authorization?: string) {
    const headers = { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) };
    const response = await fetch(server.url, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
    return { status: response.status, body: (await response.json()) as ExecutionResult<unknown> };
  }

  it("reads the Authorization header: the right token gets the buyers", async () => {
    const { status, body } = await post(BUYERS, { id: "1" }, bearer(reader));
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(JSON.stringify(body.data)).toContain("user02");
  });

  it.each(refusedReaders)("refuses buyers to %s with %s and its HTTP status", async (_caller, code, authorization) => {
    const { status, body } = await post(BUYERS, { id: "1" }, authorization);
    expect(status).toBe(HTTP_STATUS[code]);
    expectRefused(body, code);
  });

  it.each(refusedWriters)("refuses recordPurchase to %s with %s and stores nothing", async (_caller, code, authorization) => {
    const { status, body } = await post(print(RECORD_PURCHASE), { bookId: "1", customerId: "intruder" }, authorization);
    expect(status).toBe(HTTP_STATUS[code]);
    expectRefused(body, code);
    expect(await storedPurchases(api.db, "1")).toEqual(customers(3));
  });

  // Issue 13: the mutation ran, and only its answer was refused; a client retrying on FORBIDDEN doubled the write.
  it("stores nothing when a catalog:write token's mutation also asks for buyers, however often it is sent", async () => {
    const mutation = `mutation { recordPurchase(input: {bookId: "1", customerId: "x"}) { storedIn book { customersPurchased(first: 1) { totalCount } } } }`;
    for (const _attempt of [1, 2]) {
      const { status, body } = await post(mutation, {}, bearer(writer));
      expect(status).toBe(403);
      expectRefused(body, "FORBIDDEN");
    }
    expect(await storedPurchases(api.db, "1")).toEqual(customers(3));
  });

  it("adds no book when a catalog:write token's addBook also asks for buyers", async () => {
    const mutation = `mutation { addBook(input: {id: "behind-a-refusal", title: "T", author: "A"}) { id: databaseId customersPurchased { totalCount } } }`;
    for (const _attempt of [1, 2]) expectRefused((await post(mutation, {}, bearer(writer))).body, "FORBIDDEN");
    expect(await api.db.collection("sales").countDocuments({ _id: "behind-a-refusal" as never })).toBe(0);
  });
});

describe("npm start", () => {
  const start = (env: Record<string, string>) => {
    const { API_TOKENS: _ignored, ...inherited } = process.env;
    return spawn(join(__dirname, "..", "..", "node_modules", ".bin", "tsx"), [join(__dirname, "..", "..", "src", "cli", "start.ts")], {
      env: { ...inherited, LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
  };

  it("refuses to start in production without API_TOKENS, saying how to set them", async () => {
    const child = start({ NODE_ENV: "production", MONGODB_URI: process.env.TEST_MONGODB_URI! });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const [status] = await once(child, "exit");
    expect(status).toBe(1);
    expect(stderr).toMatch(/API_TOKENS: must be set when NODE_ENV=production.*JSON array of bearer tokens/);
  });

  it("warns at start-up that the API is open when no tokens are configured in development", async () => {
    const database = await openTestDatabase();
    const child = start({
      NODE_ENV: "development",
      MONGODB_URI: process.env.TEST_MONGODB_URI!,
      MONGODB_DB: database.db.databaseName,
      PORT: String(await freePort()),
    });
    try {
      const warning = await firstLine(child.stdout, /API_TOKENS is not set/);
      expect(warning).toMatchObject({ level: 40, msg: expect.stringMatching(/the API is open.*development only/) });
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      await database.close();
    }
  });

  it("listens on 127.0.0.1 only while the API is open, out of reach of other machines", async () => {
    const database = await openTestDatabase();
    const port = await freePort();
    const child = start({
      NODE_ENV: "development",
      MONGODB_URI: process.env.TEST_MONGODB_URI!,
      MONGODB_DB: database.db.databaseName,
      PORT: String(port),
    });
    try {
      await firstLine(child.stdout, /ready at http:\/\/127\.0\.0\.1:/);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      await expect(fetch(`http://${networkAddress()}:${port}/healthz`)).rejects.toMatchObject({ cause: { code: "ECONNREFUSED" } });
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      await database.close();
    }
  });
});

/** This machine's address on a network other machines can reach it through. */
function networkAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((candidate) => candidate && !candidate.internal && candidate.family === "IPv4");
  if (!address) throw new Error("this test needs a network interface besides loopback");
  return address.address;
}

async function firstLine(output: NodeJS.ReadableStream, message: RegExp): Promise<Record<string, unknown>> {
  for await (const text of createInterface({ input: output })) {
    const line = JSON.parse(text) as Record<string, unknown>;
    if (message.test(String(line.msg))) return line;
  }
  throw new Error(`the process ended without logging ${message}`);
}
