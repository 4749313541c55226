import { Writable } from "node:stream";
import pino from "pino";
import type { RunningServer } from "../../src/graphql/transport/server";
import { startTestHttpServer } from "../support/http";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";

interface RequestLogLine {
  msg: string;
  requestId: string;
  operationName: string;
  operationType?: string;
  durationMs: number;
  databaseCommands: number;
  errors: number;
  errorCodes?: string[];
}

let database: TestDatabase;
let server: RunningServer;
let lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  database = await openTestDatabase();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  server = await startTestHttpServer(database.db, { logger: pino({ level: "info" }, sink) });
  await seedBook(database.db, "1", customers(3));
  for (const id of ["2", "3", "4"]) await seedBook(database.db, id, customers(60));
});
beforeEach(() => void (lines = []));
afterAll(async () => {
  await server.stop();
  await database.close();
});

async function post(query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables }),
  });
  await response.json();
  return response;
}

const requestLines = () => lines.filter((line) => line.msg === "graphql request") as unknown as RequestLogLine[];
const lineFor = (requestId: string) => requestLines().find((line) => line.requestId === requestId);

describe("the request log", () => {
  it("writes one JSON line per request with its id, operation, duration, database commands and errors", async () => {
    const response = await post(`query Shelf { books(first: 2) { edges { node { id: databaseId } } } }`);

    expect(requestLines()).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: expect.any(Number),
        hostname: expect.any(String),
        msg: "graphql request",
        requestId: response.headers.get("x-request-id"),
        operationName: "Shelf",
        operationType: "query",
        durationMs: expect.any(Number),
        databaseCommands: 1,
        errors: 0,
      },
    ]);
  });

  it("keeps a caller's well-formed x-request-id and returns it", async () => {
    const response = await post(`{ book(id: "1") { title } }`, { "x-request-id": "checkout-7f3a:retry-2" });

    expect(response.headers.get("x-request-id")).toBe("checkout-7f3a:retry-2");
    expect(lineFor("checkout-7f3a:retry-2")).toMatchObject({ operationName: "anonymous", databaseCommands: 1 });
  });

  it.each([
    ["one carrying an encoded line break", "evil%0D%0Alevel=60"],
    ["one with spaces", "a b"],
    ["one with quotes", '"quoted"'],
    ["an overlong one", "x".repeat(129)],
  ])("replaces %s with a fresh id", async (_description, requestId) => {
    const returned = (await post("{ books { totalCount } }", { "x-request-id": requestId })).headers.get("x-request-id");

    expect(returned).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(lineFor(returned!)).toBeDefined();
  });

  it("counts each request's own database commands while requests run concurrently", async () => {
    // Reading a book is one find; a purchase past the threshold is four round trips (push refused, flag, append, count).
    const reads = ["1", "2", "3", "4"].map((id) => post(`query Read { book(id: "${id}") { title } }`, { "x-request-id": `read-${id}` }));
    const purchases = ["2", "3", "4"].map((id) =>
      post(
        `mutation Buy($id: ID!) { recordPurchase(input: { bookId: $id, customerId: "late" }) { storedIn } }`,
        { "x-request-id": `buy-${id}` },
        { id },
      ),
    );
    await Promise.all([...reads, ...purchases]);

    const counts = Object.fromEntries(requestLines().map((line) => [line.requestId, line.databaseCommands]));
    expect(counts).toEqual({ "read-1": 1, "read-2": 1, "read-3": 1, "read-4": 1, "buy-2": 4, "buy-3": 4, "buy-4": 4 });
  });

  it("says for each recorded purchase how many purchases its write carried", async () => {
    const buy = `mutation Buy { recordPurchase(input: { bookId: "2", customerId: "alone" }) { storedIn } }`;
    await post(buy, { "x-request-id": "lone-buy" });

    expect(lineFor("lone-buy")).toMatchObject({ operationName: "Buy", purchasesPerWrite: [1] });
  });

  it("logs the number and codes of a request's errors", async () => {
    await post(`mutation Buy { recordPurchase(input: { bookId: "missing", customerId: "c" }) { storedIn } }`, {
      "x-request-id": "failing",
    });

    expect(lineFor("failing")).toMatchObject({ operationName: "Buy", operationType: "mutation", errors: 1, errorCodes: ["NOT_FOUND"] });
  });

  it("logs a request that does not parse as unresolved", async () => {
    await post(`query Broken {`, { "x-request-id": "broken" });

    expect(lineFor("broken")).toMatchObject({
      operationName: "unresolved",
      databaseCommands: 0,
      errors: 1,
      errorCodes: ["GRAPHQL_PARSE_FAILED"],
    });
  });
});
