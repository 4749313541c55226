import { getOperationAST, parse } from "graphql";
import { MongoClient } from "mongodb";
import { bookGlobalId } from "../../src/graphql/schema/global-ids";
import { operationWeight, REQUEST_LIMITS } from "../../src/graphql/limits/operation";
import { schema } from "../../src/graphql/schema/schema";
import type { RunningServer } from "../../src/graphql/transport/server";
import { REQUEST_ID_HEADER } from "../../src/observability/request-context";
import { WINDOWS_PER_READ } from "../../src/sales/loaders";
import { MIN_POOL_MS, requestPoolShare } from "../../src/sales/pool-share";
import { CommandMonitor, peakInFlight } from "../support/command-monitor";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, send, startTestHttpServer, type HttpAnswer } from "../support/http";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

// What one request may cost the database (issue 27, item 3): the cost limit weighs the commands a field
// sends per parent, `first: 0` sends none, and one request holds at most its share of the pool.

const BOOKS = 60;
/** Outliers, with ids after the books: 70 buyers each, 20 of them on extra_sales pages. */
const OUTLIERS = 4;
const OUTLIER_FROM = 1_001;
/** A pool this small makes a request's share its least, 5 connections: holding more would show. */
const POOL_SIZE = 10;
const SHARE = 5;
const reader = tokenSpec("router", ["purchases:read"]);
const asReader = { "content-type": "application/json", authorization: bearer(reader) };

let database: TestDatabase;
let client: MongoClient;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  // Every book's buyers also bought book "1", so that every alsoBought has an aggregation to run and a book to return.
  for (let id = 1; id <= BOOKS; id += 1) await seedBook(database.db, String(id), customers(3, id % 5));
  for (let id = OUTLIER_FROM; id < OUTLIER_FROM + OUTLIERS; id += 1) await seedBook(database.db, String(id), customers(70, 0, `o${id}-`));
  client = await MongoClient.connect(process.env.TEST_MONGODB_URI!, { maxPoolSize: POOL_SIZE, monitorCommands: true });
  monitor = new CommandMonitor(client, { log: true });
  // Far above what the amplifier takes alone, for a busy 2-core machine: counts are asserted here, not times.
  const requestTimeoutMs = 120_000;
  server = await startTestHttpServer(client.db(database.db.databaseName), { apiTokens: configuredTokens(reader), requestTimeoutMs });
});
afterAll(async () => {
  await server.stop();
  await client.close();
  await database.close();
});

let monitor: CommandMonitor;

/** Commands a request (by its x-request-id) sent, and the most it had in flight at once, from the driver's own events. */
function costOf(requestId: string): { sent: string[]; peak: number } {
  const sent = monitor.log().filter((command) => command.request === requestId);
  return { sent: sent.map((command) => command.commandName), peak: peakInFlight(sent) };
}

let sequence = 0;
/** Sends `query` as the reader, under a request id of its own; answers with what it sent to the database. */
async function sendCounted(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = asReader) {
  const requestId = `cost-${(sequence += 1)}`;
  const answer = await send(server.url, { query, variables }, { headers: { ...headers, [REQUEST_ID_HEADER]: requestId } });
  return { answer, ...costOf(requestId), requestId };
}

const ALSO_BOUGHT = `query AlsoBought($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on Book { alsoBought(first: 1) { sharedBuyers book { title } } } }
}`;
const representations = (count: number, from = 1) =>
  Array.from({ length: count }, (_, index) => ({ __typename: "Book", databaseId: String(from + (index % BOOKS)) }));

function expectAnsweredInFull(answer: HttpAnswer): void {
  expect(answer.status).toBe(200);
  expect(answer.json?.errors).toBeUndefined();
}

describe("the cost limit weighs the database commands a field sends per parent", () => {
  it("refuses alsoBought on 2,000 _entities representations with QUERY_TOO_COMPLEX, sending nothing", async () => {
    const { answer, sent } = await sendCounted(ALSO_BOUGHT, { representations: representations(2_000) });

    expect([answer.status, errorCodes(answer)]).toEqual([400, ["QUERY_TOO_COMPLEX"]]);
    expect(sent).toEqual([]);
  });

  it("refuses alsoBought on 200 nodes, and on 15 aliases of nodes, with QUERY_TOO_COMPLEX", async () => {
    const ids = Array.from({ length: 100 }, (_, index) => Buffer.from(`Book:${index + 1}`).toString("base64"));
    const field = (alias: string) => `${alias}: nodes(ids: $ids) { ... on Book { alsoBought(first: 1) { sharedBuyers } } }`;
    const twice = await sendCounted(`query ($ids: [ID!]!) { ${field("a")} ${field("b")} }`, { ids });
    const fifteen = await sendCounted(
      `query ($ids: [ID!]!) { ${Array.from({ length: 15 }, (_, index) => field(`n${index}`)).join(" ")} }`,
      {
        ids: ids.slice(0, 20),
      },
    );

    expect([twice.answer.status, errorCodes(twice.answer), twice.sent]).toEqual([400, ["QUERY_TOO_COMPLEX"], []]);
    expect([fifteen.answer.status, errorCodes(fifteen.answer), fifteen.sent]).toEqual([400, ["QUERY_TOO_COMPLEX"], []]);
  });

  it("refuses a customer's count on 250 customers for its commands alone, its documents within their limit", async () => {
    // Four commands each (the window's two queries to say whether books follow, two `distinct` to count) and three documents.
    const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Customer { booksPurchased(first: 0) { totalCount pageInfo { hasNextPage } } } } }`;
    const customers = Array.from({ length: 250 }, (_, index) => ({ __typename: "Customer", id: `user0${index % 5}` }));
    const { answer, sent } = await sendCounted(query, { r: customers });

    expect([answer.status, errorCodes(answer), sent]).toEqual([400, ["QUERY_TOO_COMPLEX"], []]);
    expect(answer.json?.errors?.[0]?.message).toMatch(/^The query costs \d+, over the limit of 100000/);
    const document = parse(query);
    expect(operationWeight(schema, document, getOperationAST(document)!, { r: customers })?.documents).toBeLessThanOrEqual(
      REQUEST_LIMITS.maxDocuments,
    );
  });

  it(`answers alsoBought on ${BOOKS} representations with one query for every sample and one aggregation per book`, async () => {
    const { answer, sent } = await sendCounted(ALSO_BOUGHT, { representations: representations(BOOKS) });

    expectAnsweredInFull(answer);
    const entities = (answer.json?.data as { _entities: { alsoBought: unknown[] }[] })._entities;
    expect(entities.every((entity) => entity.alsoBought.length === 1)).toBe(true);
    // The books and their samples, one find each; one aggregation per book; the recommended books (1 to 5), each loaded once.
    const count = (name: string) => sent.filter((sentName) => sentName === name).length;
    expect(count("aggregate")).toBe(BOOKS);
    expect(count("find")).toBeLessThanOrEqual(2 + 5);
    expect(sent).toHaveLength(count("aggregate") + count("find"));
  });
});

/** `_entities` of `books` outliers (ids from OUTLIER_FROM on), each with `windows` aliased windows of its newest buyers, the nth of `last(n)`. */
function windowsOnEntities(books: number, windows: number, last: (index: number) => number) {
  const aliases = Array.from(
    { length: windows },
    (_, index) => `w${index}: customersPurchased(last: ${last(index)}) { edges { cursor } }`,
  ).join(" ");
  const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { ${aliases} } } }`;
  const r = Array.from({ length: books }, (_, index) => ({ __typename: "Book", databaseId: String(OUTLIER_FROM + (index % OUTLIERS)) }));
  return { query, variables: { r } };
}

describe("the documents a request may make the database examine (issue 35, item 2)", () => {
  it("refuses 15 windows of buyers on 400 outliers with QUERY_TOO_COMPLEX, sending nothing", async () => {
    const { query, variables } = windowsOnEntities(400, 15, () => 1);
    const { answer, sent } = await sendCounted(query, variables);

    expect([answer.status, errorCodes(answer), sent]).toEqual([400, ["QUERY_TOO_COMPLEX"], []]);
    expect(answer.json?.errors?.[0]?.message).toMatch(/examine 12400 documents, over the limit of 1000/);
  });

  it("refuses 15 purchasedBy on 1,500 books with QUERY_TOO_COMPLEX, sending nothing", async () => {
    const aliases = Array.from({ length: 15 }, (_, index) => `p${index}: purchasedBy(customerId: "user0${index % 5}")`).join(" ");
    const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { ${aliases} } } }`;
    const { answer, sent } = await sendCounted(query, { r: representations(1_500) });

    expect([answer.status, errorCodes(answer), sent]).toEqual([400, ["QUERY_TOO_COMPLEX"], []]);
  });

  // Every other read the documents' weight lists (src/graphql/limits/field-costs.ts; the windows: above), multiplied past
  // 1,000 documents while its commands stay under the cost limit: the documents alone refuse it, before any of it runs.
  const aliased = (count: number, field: string) => Array.from({ length: count }, (_, index) => `a${index}: ${field}`).join(" ");
  const onBooks = (count: number, field: string) => ({
    query: `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { ${field} } } }`,
    variables: { r: representations(count) },
  });
  it.each<[string, { query: string; variables?: Record<string, unknown> }]>([
    ["Book.purchasedBy, 15 checks on 400 books", onBooks(400, aliased(15, 'purchasedBy(customerId: "user01")'))],
    // 90 books, not 180: alsoBought weighs two commands (its aggregation and its books), so 180 would be refused for their cost first.
    ["Book.alsoBought, 10 books each on 90 books", onBooks(90, "alsoBought(first: 10) { sharedBuyers }")],
    [
      "Customer.booksPurchased, 15 windows of 100",
      { query: `{ customer(id: "user01") { ${aliased(15, "booksPurchased(first: 100) { edges { cursor } }")} } }` },
    ],
    ["Query.books, 15 searches of 100", { query: `{ ${aliased(15, 'books(first: 100, search: "amulet") { edges { cursor } }')} }` }],
    ["Query.books, 15 catalog pages of 100", { query: `{ ${aliased(15, "books(first: 100) { edges { cursor } }")} }` }],
    ["Query._entities, 1,001 representations", onBooks(1_001, "title")],
    [
      "Query.nodes, 1,001 ids",
      {
        query: `query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
        variables: { ids: Array.from({ length: 1_001 }, (_, index) => bookGlobalId(String(1 + (index % BOOKS)))) },
      },
    ],
  ])("refuses %s with QUERY_TOO_COMPLEX for the documents it may examine, sending nothing", async (_read, { query, variables }) => {
    const { answer, sent } = await sendCounted(query, variables);

    expect([answer.status, errorCodes(answer), sent]).toEqual([400, ["QUERY_TOO_COMPLEX"], []]);
    expect(answer.json?.errors?.[0]?.message).toMatch(/may make the database examine \d+ documents, over the limit of 1000/);
  });

  it("reads the windows of one request in aggregations of at most 50 windows each", async () => {
    // Windows of 1 to 15 buyers: 60 windows of their own, none the loader's cache answers from another.
    const { query, variables } = windowsOnEntities(OUTLIERS, 15, (index) => index + 1);
    const { answer, sent } = await sendCounted(query, variables);

    expectAnsweredInFull(answer);
    const entities = (answer.json?.data as { _entities: Record<string, { edges: unknown[] }>[] })._entities;
    expect(entities.every((entity) => Object.values(entity).every((window, index) => window.edges.length === index + 1))).toBe(true);
    // 60 windows: two aggregations of extra_sales, where one used to compute all 60 on every page it read.
    expect(sent.filter((name) => name === "aggregate")).toHaveLength(Math.ceil((OUTLIERS * 15) / WINDOWS_PER_READ));
  });
});

describe("a search repeated by aliases (issue 35's search amplifier)", () => {
  it("counts each of its words once for the whole request, not once per alias", async () => {
    const search = (alias: string) => `${alias}: books(first: 5, search: "zqxv wkjy") { edges { node { title } } }`;
    const once = await sendCounted(`{ ${search("s")} }`);
    const fifteen = await sendCounted(`{ ${Array.from({ length: 15 }, (_, index) => search(`s${index}`)).join(" ")} }`);

    expectAnsweredInFull(once.answer);
    expectAnsweredInFull(fifteen.answer);
    const counts = (sent: string[]) => sent.filter((name) => name === "count").length;
    // Two words, neither stored: each is counted to choose the narrower one to read, once per request.
    expect(counts(once.sent)).toBe(2);
    expect(counts(fifteen.sent)).toBe(2);
  });
});

describe("first: 0", () => {
  it("sends no command for a customer's booksPurchased, by customer(id:) or as an entity", async () => {
    const direct = await sendCounted(`{ customer(id: "user01") { booksPurchased(first: 0) { edges { cursor } } } }`);
    const entity = await sendCounted(
      `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Customer { booksPurchased(first: 0) { edges { cursor } } } } }`,
      { representations: [{ __typename: "Customer", id: "user01" }] },
    );

    expect([direct.answer.json, direct.sent]).toEqual([{ data: { customer: { booksPurchased: { edges: [] } } } }, []]);
    expect([entity.answer.json, entity.sent]).toEqual([{ data: { _entities: [{ booksPurchased: { edges: [] } }] } }, []]);
  });

  it("still says whether books follow when pageInfo asks, counting from the cursor", async () => {
    const { answer } = await sendCounted(`{ customer(id: "user01") { booksPurchased(first: 0) { pageInfo { hasNextPage } } } }`);
    const none = await sendCounted(`{ customer(id: "nobody") { booksPurchased(first: 0) { pageInfo { hasNextPage } } } }`);

    expect(answer.json).toEqual({ data: { customer: { booksPurchased: { pageInfo: { hasNextPage: true } } } } });
    expect(none.answer.json).toEqual({ data: { customer: { booksPurchased: { pageInfo: { hasNextPage: false } } } } });
  });

  it("sends nothing for alsoBought beyond reading the book itself", async () => {
    const { answer, sent } = await sendCounted(`{ book(id: "1") { alsoBought(first: 0) { sharedBuyers } } }`);

    expect([answer.json, sent]).toEqual([{ data: { book: { alsoBought: [] } } }, ["find"]]);
  });
});

describe("one request's share of the connection pool", () => {
  it(`is ${SHARE} connections of a pool of ${POOL_SIZE}: a tenth, at least the widest read's five`, () => {
    expect(requestPoolShare(client.db(database.db.databaseName))).toBe(SHARE);
  });

  it("holds an allowed amplifying request to its share while an anonymous public query answers", async () => {
    let publicQuery: ReturnType<typeof sendCounted> | undefined;
    const stopListening = monitor.onStarted(({ request }) => {
      // Sent from within the amplifier's first command: while the amplifier runs.
      if (request !== "cost-amplifier" || publicQuery) return;
      publicQuery = sendCounted(`{ books(first: 5) { edges { node { title } } } }`, {}, { "content-type": "application/json" });
    });
    const amplified = await send(
      server.url,
      { query: ALSO_BOUGHT, variables: { representations: representations(BOOKS) } },
      { headers: { ...asReader, [REQUEST_ID_HEADER]: "cost-amplifier" } },
    );
    stopListening();
    expect(publicQuery).toBeDefined();
    const other = await publicQuery!;

    expectAnsweredInFull(amplified);
    expect(costOf("cost-amplifier").sent.length).toBeGreaterThan(BOOKS);
    expect(costOf("cost-amplifier").peak).toBeLessThanOrEqual(SHARE);
    expectAnsweredInFull(other.answer);
    expect(other.answer.json?.data).toMatchObject({ books: { edges: expect.arrayContaining([{ node: { title: "Seeded 1" } }]) } });
  });

  it("refuses a request's further reads with POOL_TIME_SPENT once it held the connection time its weight allows, answering what it read", async () => {
    const query = `{ book(id: "1") { title alsoBought(first: 1) { book { title } } } }`;
    // The book's read blocked past the least connection time a request may hold: its weight (two commands) allows no more.
    const data = {
      failCommands: ["find"],
      namespace: `${database.db.databaseName}.sales`,
      blockConnection: true,
      blockTimeMS: MIN_POOL_MS + 100,
    };
    await client.db("admin").command({ configureFailPoint: "failCommand", mode: { times: 1 }, data });
    const slowed = await sendCounted(query).finally(() => client.db("admin").command({ configureFailPoint: "failCommand", mode: "off" }));

    expect(errorCodes(slowed.answer)).toEqual(["POOL_TIME_SPENT"]);
    // alsoBought is non-null, so its refusal takes the book with it, as GraphQL has it.
    expect(slowed.answer.json?.data).toEqual({ book: null });
    expect(slowed.answer.json?.errors?.[0]?.path).toEqual(["book", "alsoBought"]);
    expect(slowed.sent).toEqual(["find"]);
    // The budget is the request's own: the next one reads in full.
    expectAnsweredInFull((await sendCounted(query)).answer);
  });
});
