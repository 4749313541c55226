import { createHash } from "node:crypto";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, withCommandCount, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { getUrl, postOperation, send, startTestHttpServer, type HttpAnswer } from "../support/http";
import { configuredTokens, tokenSpec, type TokenSpec } from "../support/tokens";

/**
 * Two API instances on one database and one Redis, as two processes behind a load balancer: what one
 * caches, the other answers from. Runs only when TEST_REDIS_URL is set (jest.config.js); it never
 * passes without a Redis that answers.
 */
const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) throw new Error("TEST_REDIS_URL is unset: these tests need a Redis (see docs/testing.md)");

const reader = tokenSpec("reader", ["purchases:read"]);
const otherReader = tokenSpec("other-reader", ["purchases:read"]);
const apiTokens = configuredTokens(reader, otherReader);

const LISTING = `query Listing($first: Int) { books(first: $first) { totalCount edges { node { id: databaseId title purchaseCount } } } }`;
const BUYERS = `query Buyers($id: ID!) { book(id: $id) { customersPurchased(first: 10) { edges { node { id: databaseId } } } } }`;

let database: TestDatabase;
let first: RunningServer;
let second: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  // These tests are about sharing, not outages (cache-outage.test.ts): a wait of 1 s keeps a busy machine's pauses from turning hits into misses.
  const cache = { catalogMaxAgeSeconds: 600, responseCacheUrl: redisUrl, responseCacheTimeoutMs: 1_000 };
  const options = { apiTokens, cache };
  first = await startTestHttpServer(database.db, options);
  second = await startTestHttpServer(database.db, options);
  for (const id of ["1", "2"]) await seedBook(database.db, id, customers(3));
});
afterAll(async () => {
  await first.stop();
  await second.stop();
  await database.close();
});

const post = (server: RunningServer, query: string, variables: Record<string, unknown>, token?: TokenSpec) =>
  postOperation(server.url, query, variables, token);
const withCommands = (request: () => Promise<HttpAnswer>) => withCommandCount(database.commands, request);

describe("a response cache shared through Redis", () => {
  it("answers a listing on the second instance from what the first cached, with 0 database commands", async () => {
    const [read, readCommands] = await withCommands(() => post(first, LISTING, { first: 2 }));
    // A hit on the first instance too: its write reached Redis, which answers each connection's commands in order.
    const [, hitCommands] = await withCommands(() => post(first, LISTING, { first: 2 }));
    const [shared, sharedCommands] = await withCommands(() => post(second, LISTING, { first: 2 }));

    expect([readCommands > 0, hitCommands, sharedCommands]).toEqual([true, 0, 0]);
    expect(shared.json).toEqual(read.json);
    expect(shared.cacheControl).toBe("max-age=600, public");
  });

  it("gives a private answer to its own token on either instance, and to no other token", async () => {
    await post(first, BUYERS, { id: "2" }, reader);
    const [, hitCommands] = await withCommands(() => post(first, BUYERS, { id: "2" }, reader));
    const [own, ownCommands] = await withCommands(() => post(second, BUYERS, { id: "2" }, reader));
    const [other, otherCommands] = await withCommands(() => post(second, BUYERS, { id: "2" }, otherReader));

    expect([hitCommands, ownCommands]).toEqual([0, 0]);
    expect(otherCommands).toBeGreaterThan(0);
    expect(other.json).toEqual(own.json);
  });

  it("serves on the second instance a persisted query registered on the first", async () => {
    const query = `query ByHash($id: ID!) { book(id: $id) { title } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash("sha256").update(query).digest("hex") } };
    const get = (server: RunningServer, request: Parameters<typeof getUrl>[1]) =>
      send(getUrl(server.url, request), undefined, { method: "GET", headers: {} });

    await get(first, { query, variables: { id: "1" }, extensions });
    // As above: a hit on the first instance shows its registration reached Redis.
    expect((await get(first, { variables: { id: "1" }, extensions })).json).toEqual({ data: { book: { title: "Seeded 1" } } });
    expect((await get(second, { variables: { id: "2" }, extensions })).json).toEqual({ data: { book: { title: "Seeded 2" } } });
  });
});
