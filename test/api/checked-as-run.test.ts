import fc from "fast-check";
import type { RunningServer } from "../../src/graphql/transport/server";
import { captureLog } from "../support/captured-log";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, getUrl, postOperation, send, startTestHttpServer, type HttpAnswer } from "../support/http";
import { subscribe, subscriptionClient } from "../support/subscriptions";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

// What the checks (input, cost, scopes) read is what runs: the variables are coerced once, and both the checks and the
// engine get those values; and no request, whatever it holds, leaves a promise nobody awaits (which ends the process).

const reader = tokenSpec("back-office", ["purchases:read"]);
const log = captureLog();
let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  server = await startTestHttpServer(database.db, { apiTokens: configuredTokens(reader), logger: log.logger });
  await seedBook(database.db, "1", customers(3));
  await seedBook(database.db, "2", customers(2, 10));
  await seedBook(database.db, "3", customers(1, 20));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

/** Every promise rejected with no handler while a test runs: Node ends a process on the first. */
const unhandled: unknown[] = [];
const noteUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  log.clear();
  process.on("unhandledRejection", noteUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", noteUnhandled);
});

/** A purchase history, which needs purchases:read, beside a filter variable. */
const HISTORY_BESIDE_A_FILTER = `query ($f: BookFilter) {
  books(first: 0, filter: $f) { totalCount }
  customer(id: "user000") { booksPurchased(first: 5) { edges { node { title } } } }
}`;

/** Refused as the client's input: a 400, BAD_USER_INPUT, no data, and nothing logged at error level. */
function expectRefusedInput(answer: HttpAnswer): void {
  expect(answer.status).toBe(400);
  expect(errorCodes(answer)).toEqual(["BAD_USER_INPUT"]);
  expect(answer.json?.data).toBeUndefined();
  expect(log.errors()).toEqual([]);
}

describe("variables coerced once, for the checks and the execution alike", () => {
  it("asks for a token when the filter is an object, as it must", async () => {
    const answer = await postOperation(server.url, HISTORY_BESIDE_A_FILTER, { f: {} });
    expect(answer.status).toBe(401);
    expect(errorCodes(answer)).toEqual(["UNAUTHENTICATED"]);
  });

  it("refuses a filter sent as a list, which the compiled engine would have run unchecked, by POST and by GET", async () => {
    expectRefusedInput(await postOperation(server.url, HISTORY_BESIDE_A_FILTER, { f: [] }));
    const byGet = await send(getUrl(server.url, { query: HISTORY_BESIDE_A_FILTER, variables: { f: [] } }), undefined, { method: "GET" });
    expectRefusedInput(byGet);
    expect(JSON.stringify(byGet.json)).not.toMatch(/user000|title/);
  });

  it("refuses an operation over the cost limit whose variables the checks could not weigh", async () => {
    const windows = Array.from(
      { length: 12 },
      (_, index) => `c${index}: customer(id: "user00${index % 3}") { booksPurchased(first: 100) { totalCount } }`,
    );
    const heavy = `query ($f: BookFilter) { books(first: 0, filter: $f) { totalCount } ${windows.join(" ")} }`;
    expectRefusedInput(await postOperation(server.url, heavy, { f: [] }, reader));
    // With a filter that coerces, the same operation is weighed, and refused for its weight.
    const weighed = await postOperation(server.url, heavy, { f: {} }, reader);
    expect(errorCodes(weighed)).toEqual(["QUERY_TOO_COMPLEX"]);
  });

  it("fills a variable left out from its default, as the spec says", async () => {
    const answer = await postOperation(server.url, `query ($f: Int! = 2) { books(first: $f) { edges { node { databaseId } } } }`, {});
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { books: { edges: [{ node: { databaseId: "1" } }, { node: { databaseId: "2" } }] } } });
  });

  it("answers a null sent for a defaulted variable that reaches a non-null argument as the client's error", async () => {
    expectRefusedInput(await postOperation(server.url, `query ($i: ID = "2") { book(id: $i) { title } }`, { i: null }));
    const left = await postOperation(server.url, `query ($i: ID = "2") { book(id: $i) { databaseId } }`, {});
    expect(left.json).toEqual({ data: { book: { databaseId: "2" } } });
  });

  it("refuses over the WebSocket what does not coerce, as BAD_USER_INPUT", async () => {
    const client = subscriptionClient(server.url);
    const sales = subscribe(client, `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId } }`, { ids: [{ $gt: "" }] });
    const ended = (await sales.ended) as { extensions?: { code?: string } }[];
    expect(ended.map((error) => error.extensions?.code)).toEqual(["BAD_USER_INPUT"]);
    await client.dispose();
  });

  it("runs a shared subscription with its defaults, whichever subscriber came first", async () => {
    const query = `subscription ($top: Int! = 2) { bestsellers(top: $top) { databaseId } }`;
    const client = subscriptionClient(server.url);
    const leftOut = subscribe<{ bestsellers: { databaseId: string }[] }>(client, query, {});
    expect((await leftOut.next()).data).toEqual({ bestsellers: [{ databaseId: "1" }, { databaseId: "2" }] });
    const sent = subscribe<{ bestsellers: { databaseId: string }[] }>(client, query, { top: 2 });
    expect((await sent.next()).data).toEqual({ bestsellers: [{ databaseId: "1" }, { databaseId: "2" }] });
    leftOut.stop();
    sent.stop();
    await client.dispose();
  });
});

describe("_entities", () => {
  const ENTITIES = `query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Book { title } ... on Customer { databaseId } } }`;

  it("settles every representation when one is refused beside another that throws at once", async () => {
    const representations = [
      { __typename: "Book", id: "x".repeat(200) },
      { __typename: "Customer", databaseId: "" },
    ];
    const answer = await postOperation(server.url, ENTITIES, { r: representations });
    expect(errorCodes(answer)).toEqual(["BAD_USER_INPUT", "BAD_USER_INPUT"]);
    // A turn for any rejection left behind to be reported.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    expect((await postOperation(server.url, `{ book(id: "1") { databaseId } }`, {})).json).toEqual({ data: { book: { databaseId: "1" } } });
  });

  const id = fc.oneof(
    fc.constantFrom("1", "2", "404", "", "Qm9vazox", "Q3VzdG9tZXI6dXNlcjAwMA==", "user000"),
    fc.string({ maxLength: 4 }),
    fc.nat({ max: 300 }).map((length) => "x".repeat(length)),
  );
  const representation = fc.oneof(
    fc.record({ __typename: fc.constantFrom("Book", "Customer"), id }),
    fc.record({ __typename: fc.constantFrom("Book", "Customer"), databaseId: id }),
  );

  it("answers any mix of representations, by GET or POST, with data or coded errors, and leaves no promise unhandled", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(representation, { minLength: 1, maxLength: 6 }), fc.boolean(), async (representations, byGet) => {
        const answer = byGet
          ? await send(getUrl(server.url, { query: ENTITIES, variables: { r: representations } }), undefined, { method: "GET" })
          : await postOperation(server.url, ENTITIES, { r: representations });
        expect(answer.status).toBeLessThan(500);
        expect(answer.json?.data !== undefined || (answer.json?.errors ?? []).length > 0).toBe(true);
        for (const code of errorCodes(answer)) expect(code).toMatch(/^(BAD_USER_INPUT|NOT_FOUND)$/);
        await new Promise((resolve) => setImmediate(resolve));
        expect(unhandled).toEqual([]);
      }),
      { seed: 51, numRuns: 150 },
    );
    expect(log.errors()).toEqual([]);
  });
});

it("refuses a filter sent as a list to a caller who may read histories, too: it is refused, not run", async () => {
  const answer = await send(
    server.url,
    { query: HISTORY_BESIDE_A_FILTER, variables: { f: [] } },
    { headers: { "content-type": "application/json", authorization: bearer(reader) } },
  );
  expectRefusedInput(answer);
});
