import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../src/config";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, withCommandCount, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { postOperation, startTestHttpServer, type HttpAnswer } from "../support/http";
import { scrapeMetrics } from "../support/metrics";
import { startOwnRedis, type OwnRedis } from "../support/redis-server";

/**
 * A Redis that goes away costs cache misses, never a failed request. These tests stop and freeze a
 * redis-server of their own (test/support/redis-server.ts), never the one TEST_REDIS_URL names; like
 * every test in test/redis they run when TEST_REDIS_URL is set (jest.config.js), as in CI, and they
 * fail if Debian's redis-server is not on PATH.
 */
const SHELF = `query Shelf($first: Int) { books(first: $first) { totalCount edges { node { id: databaseId title } } } }`;
const CONCURRENT_QUERIES = 30;
// The server's request limit here: three times the default, so that a busy machine (jest runs files side by side) leaves
// 30 concurrent answers far from it. A request that waited for Redis would take the whole limit and answer 503; half of it
// is the bound, as it was of the default limit.
const REQUEST_TIMEOUT_MS = 3 * DEFAULT_REQUEST_TIMEOUT_MS;
const ANSWER_BOUND_MS = REQUEST_TIMEOUT_MS / 2;
// Redis (re)started: node-redis connects within about 2 s, then the breaker's next probe closes it within 1 s.
const RECOVERY_DEADLINE_MS = 30_000;
const BREAKER_PROBE_INTERVAL_MS = 1_000;

let database: TestDatabase;
let redis: OwnRedis;
let server: RunningServer;
let logLines: { level: number; msg: string }[];
beforeAll(async () => {
  database = await openTestDatabase();
  for (const id of ["1", "2", "3"]) await seedBook(database.db, id, customers(3));
  redis = await startOwnRedis();
});
beforeEach(async () => {
  logLines = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
      done();
    },
  });
  const cache = { catalogMaxAgeSeconds: 600, responseCacheUrl: redis.url };
  server = await startTestHttpServer(database.db, { cache, logger: pino({ level: "info" }, sink), requestTimeoutMs: REQUEST_TIMEOUT_MS });
  // The server never waits for Redis: until its client has connected (slower on a busy machine), answers are not cached.
  await waitUntilCached("the server started");
  logLines.length = 0;
});
afterEach(async () => {
  await server.stop();
  // Whatever a failed test left it as: running and answering, for the next test.
  await redis.close();
  await redis.start();
});
afterAll(async () => {
  await redis.close();
  await database.close();
});

// A variable the operation does not declare is ignored by GraphQL, yet it is part of the response cache's key.
let requestNumber = 0;
/** Variables no earlier request used, so that the first request with them misses the cache. */
const freshVariables = () => ({ first: 2, unique: requestNumber++ });
const shelf = (variables: Record<string, unknown>) => postOperation(server.url, SHELF, variables);

/** `count` concurrent cacheable queries, each with its answer and how long it took. */
async function concurrentQueries(count: number): Promise<{ answer: HttpAnswer; ms: number }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const started = Date.now();
      const answer = await shelf({ ...freshVariables(), first: (index % 3) + 1 });
      return { answer, ms: Date.now() - started };
    }),
  );
}

/** Whether a second identical query was answered from the cache, sending no database command. */
async function answeredFromCache(): Promise<boolean> {
  const variables = freshVariables();
  await shelf(variables);
  const [, commands] = await withCommandCount(database.commands, () => shelf(variables));
  return commands === 0;
}

async function waitUntilCached(since: string): Promise<void> {
  const deadline = Date.now() + RECOVERY_DEADLINE_MS;
  while (!(await answeredFromCache())) {
    if (Date.now() > deadline) throw new Error(`answers were not cached within ${RECOVERY_DEADLINE_MS} ms after ${since}`);
    await sleep(200);
  }
}

/** Half-open probes while Redis is still away: each fails and opens the breaker again, which must not log again. */
async function failedProbes(count: number): Promise<void> {
  for (let probe = 0; probe < count; probe += 1) {
    await sleep(BREAKER_PROBE_INTERVAL_MS + 200);
    expect((await shelf(freshVariables())).status).toBe(200);
  }
}

const outageLines = () => logLines.filter((line) => line.level === 40 && line.msg.startsWith("response cache: Redis is not answering"));
const recoveryLines = () => logLines.filter((line) => line.msg === "response cache: Redis answers again; caching resumed");

async function breakerMetrics() {
  const { sample } = await scrapeMetrics(server);
  return {
    closed: sample("bookstore_response_cache_breaker_state", 'state="closed"'),
    errors: sample("bookstore_response_cache_failures_total", 'reason="error"') ?? 0,
    timeouts: sample("bookstore_response_cache_failures_total", 'reason="timeout"') ?? 0,
    skipped: sample("bookstore_response_cache_skipped_total") ?? 0,
  };
}

function expectAllAnsweredWithData(results: { answer: HttpAnswer; ms: number }[]): void {
  expect(results.map(({ answer }) => answer.status)).toEqual(Array(CONCURRENT_QUERIES).fill(200));
  for (const { answer, ms } of results) {
    expect(answer.json).toEqual({ data: { books: expect.objectContaining({ totalCount: 3 }) } });
    expect(ms).toBeLessThan(ANSWER_BOUND_MS);
  }
}

interface Outage {
  begin(): Promise<void> | void;
  end(): Promise<void> | void;
  /** The failures the breaker counts meanwhile. */
  failures: "errors" | "timeouts";
}

const STOPPED: Outage = { begin: () => redis.stop(), end: () => redis.start(), failures: "errors" };
const FROZEN: Outage = { begin: () => redis.freeze(), end: () => redis.thaw(), failures: "timeouts" };

describe("the Redis response cache while Redis is away", () => {
  it.each([
    ["stopped", "Redis returns", STOPPED],
    ["frozen (SIGSTOP)", "it thaws", FROZEN],
  ])(
    "answers 30 concurrent queries with data while Redis is %s, opens its breaker, logs once, and caches again when %s",
    async (_state, _return, outage) => {
      expect(await answeredFromCache()).toBe(true);

      await outage.begin();
      expectAllAnsweredWithData(await concurrentQueries(CONCURRENT_QUERIES));
      // The breaker is open now: these do not ask Redis at all (each request's first read of it, the cache generation, is skipped).
      expectAllAnsweredWithData(await concurrentQueries(CONCURRENT_QUERIES));
      await failedProbes(2);

      const during = await breakerMetrics();
      expect(during.closed).toBe(0);
      expect(during[outage.failures]).toBeGreaterThan(0);
      expect(during.skipped).toBeGreaterThan(0);
      expect(outageLines()).toHaveLength(1);

      await outage.end();
      await waitUntilCached("Redis's return");
      expect((await breakerMetrics()).closed).toBe(1);
      expect(recoveryLines()).toHaveLength(1);
    },
  );
});
