import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { SubscriberReport, SubscriberWrites } from "../../bench/processes/subscriber-process";
import { valueKey, type MixBooks } from "../../bench/scenarios/subscriber-mix";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { seedBook } from "../support/factories";
import { postOperation, startTestHttpServer } from "../support/http";
import { webSocketUrl } from "../support/subscriptions";
import { configuredTokens, tokenSpec } from "../support/tokens";

/**
 * The subscriber benchmark's load process (bench/processes/subscriber-process.ts) against a real API: it speaks
 * graphql-transport-ws with graphql-ws's message functions on bare sockets rather than through graphql-ws's client, so
 * this is what shows that the API accepts what it sends and that it counts what arrives: every subscriber holds its
 * first values before `ready`, each value a purchase brought is counted once with its latency, none is lost at the
 * end, and the process reports its own CPU from `go`.
 */
const writer = tokenSpec("load-writer", ["catalog:write"]);
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { book { purchaseCount } } }`;
const BOOKS: MixBooks = { hot: "load-hot", quiet: ["load-quiet"] };
// One period of the mix: 12 on the hot book's page, 5 on the quiet book's, 3 on a shelf of both.
const SUBSCRIBERS = 20;

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  server = await startTestHttpServer(database.db, { apiTokens: configuredTokens(writer) });
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

it("subscribes every load subscriber over graphql-transport-ws, counts each purchase's value once with its latency, and reports its own CPU", async () => {
  for (const bookId of [BOOKS.hot, ...BOOKS.quiet]) await seedBook(database.db, bookId, []);
  const load = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "bench/processes/subscriber-process.ts",
      webSocketUrl(server.url),
      "graphql",
      "0",
      String(SUBSCRIBERS),
      JSON.stringify(BOOKS),
    ],
    { cwd: join(__dirname, "..", ".."), stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: load.stdout })[Symbol.asyncIterator]();
  expect((await lines.next()).value).toBe("ready");
  load.stdin.write("go\n");

  const purchases = [BOOKS.hot, BOOKS.hot, BOOKS.quiet[0]!, BOOKS.hot];
  const writes: SubscriberWrites = { finals: { [BOOKS.hot]: 3, [BOOKS.quiet[0]!]: 1 }, writtenAt: {} };
  const reached: Record<string, number> = {};
  for (const [index, bookId] of purchases.entries()) {
    reached[bookId] = (reached[bookId] ?? 0) + 1;
    writes.writtenAt[valueKey(bookId, reached[bookId])] = performance.timeOrigin + performance.now();
    const answer = await postOperation(server.url, RECORD, { bookId, customerId: `load-buyer-${index}` }, writer);
    expect(answer.json?.errors).toBeUndefined();
  }
  load.stdin.write(`${JSON.stringify(writes)}\n`);
  const report = JSON.parse((await lines.next()).value as string) as SubscriberReport;

  expect(report.subscribers).toBe(SUBSCRIBERS);
  expect(report.atFinal).toBe(SUBSCRIBERS);
  // 15 subscribers hold the hot book (3 purchases) and 8 the quiet one (1): conflation may drop a value, never the last.
  expect(report.delivered).toBeGreaterThanOrEqual(15 + 8);
  expect(report.delivered).toBeLessThanOrEqual(15 * 3 + 8);
  const timed = Object.values(report.latencyHistogram).reduce((total, values) => total + values, 0);
  expect(timed).toBe(report.delivered);
  expect(report.cpuMs).toBeGreaterThan(0);
});
