import { createClient } from "@redis/client";
import { REQUEST_LIMITS } from "../../src/graphql/limits/operation";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { closeAddressedClients, sendFrom, type AddressedAnswer } from "../support/from-address";
import { startOwnRedis, type OwnRedis } from "../support/redis-server";

/**
 * Two API processes (`npm start`'s entry) on one database and one Redis of the test's own: a client's budget
 * (src/graphql/limits/client-budget.ts) is counted in Redis, so what it spent through one process is spent in the
 * other. With Redis stopped, each process counts its clients alone, says so once in its log, and answers nothing 5xx;
 * once Redis is back, the budget is one again. Each client is an address of its own (127.0.0.2 and on).
 */

// Budgets for one request at the document limit, refilling over an hour: nothing refills while the test runs.
const BUDGET_ENV = { CLIENT_BUDGET_DOCUMENTS: String(REQUEST_LIMITS.maxDocuments), CLIENT_BUDGET_SECONDS: "3600" };
/** As many representations as the document limit lets in: a heavy request that weighs a whole budget. */
const HEAVY = {
  query: "query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { title } } }",
  variables: {
    r: Array.from({ length: REQUEST_LIMITS.maxDocuments }, (_, index) => ({ __typename: "Book", databaseId: String(index + 1) })),
  },
};
// Each failed command counts; the breaker opens after 5 within 10 s, and its probe needs a request once Redis is back.
const MOST_ATTEMPTS = 200;
// Two processes that start on a busy machine, and a Redis restarted and reconnected to.
jest.setTimeout(120_000);

let database: TestDatabase;
let redis: OwnRedis;
let a: ApiProcess;
let b: ApiProcess;
beforeAll(async () => {
  database = await openTestDatabase();
  redis = await startOwnRedis();
  const env = { MONGODB_DB: database.db.databaseName, NODE_ENV: "development", RESPONSE_CACHE_URL: redis.url, ...BUDGET_ENV };
  [a, b] = await Promise.all([startApiProcess("src/cli/start.ts", env), startApiProcess("src/cli/start.ts", env)]);
});
afterAll(async () => {
  closeAddressedClients();
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.close();
  await database?.close();
});

const codesOf = (answer: AddressedAnswer) => (answer.json?.errors ?? []).map((error) => error.extensions?.code);
const answered = (answer: AddressedAnswer) => [answer.status, codesOf(answer)];

let nextAddress = 2;
/** An address no request came from yet: a client whose budget is whole. */
const freshClient = () => `127.0.0.${nextAddress++}`;

/** Whether Redis holds a budget of `client`'s documents: a process counted it there. */
async function countedInRedis(client: string): Promise<boolean> {
  const connection = createClient({ url: redis.url });
  await connection.connect();
  try {
    return (await connection.keys(`*:budget:documents:*${client}`)).length > 0;
  } finally {
    connection.destroy();
  }
}

/**
 * Sends heavy requests to `api`, each from a client of its own (whose whole budget pays it: 200), until `done` says so;
 * fails on any answer but 200, and if `done` never says so.
 */
async function heavyUntil(api: ApiProcess, done: (client: string) => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < MOST_ATTEMPTS; attempt++) {
    const client = freshClient();
    expect(answered(await sendFrom(api.url, client, HEAVY))).toEqual([200, []]);
    if (await done(client)) return;
  }
  throw new Error(`${api.url} did not get there within ${MOST_ATTEMPTS} heavy requests`);
}

/** Whether `api` has logged a line matching `message` (a flag set when it does). */
function loggedFlag(api: ApiProcess, message: RegExp): () => boolean {
  let seen = false;
  void api.logged(message).then(() => (seen = true));
  return () => seen;
}

test("a client that spent its budget through one process is refused 429 RATE_LIMITED by the other", async () => {
  // The processes connect to Redis in the background, and count each budget alone until they have.
  await heavyUntil(a, countedInRedis);
  await heavyUntil(b, countedInRedis);
  const client = freshClient();
  expect(answered(await sendFrom(a.url, client, HEAVY))).toEqual([200, []]);
  const refused = await sendFrom(b.url, client, HEAVY);
  expect(answered(refused)).toEqual([429, ["RATE_LIMITED"]]);
  expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
});

test("with Redis stopped each process counts a client alone, logs it, answers nothing 5xx, and shares again once Redis is back", async () => {
  await redis.stop();
  await heavyUntil(a, loggedFlag(a, /^client budgets: Redis is not answering/));

  // Counted per process: a spends the client's budget and refuses it, b still has a whole one.
  const alone = freshClient();
  expect(answered(await sendFrom(a.url, alone, HEAVY))).toEqual([200, []]);
  expect(answered(await sendFrom(a.url, alone, HEAVY))).toEqual([429, ["RATE_LIMITED"]]);
  expect(answered(await sendFrom(b.url, alone, HEAVY))).toEqual([200, []]);

  await redis.start();
  // b saw too few failures to open its breaker; a's, opened, closes again.
  const recovered = loggedFlag(a, /^client budgets: Redis answers again/);
  // node-redis reconnects within seconds; each breaker closes at the first request it lets probe Redis.
  await heavyUntil(a, countedInRedis);
  await heavyUntil(b, countedInRedis);
  expect(recovered()).toBe(true);

  const shared = freshClient();
  expect(answered(await sendFrom(a.url, shared, HEAVY))).toEqual([200, []]);
  expect(answered(await sendFrom(b.url, shared, HEAVY))).toEqual([429, ["RATE_LIMITED"]]);
});

test("with Redis frozen every heavy request is still answered, the outage is logged, and the budget is shared again once it thaws", async () => {
  redis.freeze();
  // Each charge waits RESPONSE_CACHE_TIMEOUT_MS for Redis, then is counted in the process; the breaker then stops asking.
  await heavyUntil(a, loggedFlag(a, /^client budgets: Redis is not answering \(no answer within/));
  redis.thaw();
  await heavyUntil(a, countedInRedis);
  await heavyUntil(b, countedInRedis);

  const shared = freshClient();
  expect(answered(await sendFrom(b.url, shared, HEAVY))).toEqual([200, []]);
  expect(answered(await sendFrom(a.url, shared, HEAVY))).toEqual([429, ["RATE_LIMITED"]]);
});
