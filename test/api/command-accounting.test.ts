import { Writable } from "node:stream";
import pino from "pino";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";

let database: TestDatabase;
let server: RunningServer;
let lines: { msg?: string; databaseCommands?: number }[] = [];
beforeAll(async () => {
  database = await openTestDatabase();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  server = await startTestHttpServer(database.db, { logger: pino({ level: "info" }, sink) });
  await seedBook(database.db, "small", customers(3));
  // Outliers: a purchase crosses into extra_sales, a page of buyers reads both collections.
  for (const id of ["big-1", "big-2", "big-3"]) await seedBook(database.db, id, customers(70));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

function post(query: string) {
  return fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) }).then(
    (response) => response.json(),
  );
}

/** Every command /metrics has counted so far, all command names together. */
async function commandsOnMetrics(): Promise<number> {
  const text = await (await fetch(server.url.replace(/\/graphql$/, "/metrics"))).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("bookstore_mongodb_commands_total{"))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

it("counts in the request log lines and in /metrics every command sent to the database, with concurrent requests interleaved", async () => {
  // A scrape sends commands of its own (the outlier gauge's count): measured once, then taken out.
  const first = await commandsOnMetrics();
  const scrapeCost = (await commandsOnMetrics()) - first;
  const before = await commandsOnMetrics();
  database.commands.reset();
  lines = [];

  await Promise.all(
    ["big-1", "big-2", "big-3", "small"].flatMap((id, index) => [
      post(`{ book(id: "${id}") { title purchaseCount } }`),
      post(`mutation { recordPurchase(input: { bookId: "${id}", customerId: "late-${index}" }) { storedIn } }`),
      post(`{ book(id: "${id}") { customersPurchased(first: 60) { edges { node { id } } } } }`),
      post(`{ books(first: 5) { totalCount edges { node { id purchaseCount } } } }`),
    ]),
  );

  // What the test's own command monitoring saw leave the client, whichever request sent it.
  const received = database.commands.names().length;
  const logged = lines.filter((line) => line.msg === "graphql request");
  expect(logged).toHaveLength(16);
  expect(received).toBeGreaterThan(16);
  expect(logged.reduce((total, line) => total + (line.databaseCommands ?? 0), 0)).toBe(received);
  expect((await commandsOnMetrics()) - before - scrapeCost).toBe(received);
});
