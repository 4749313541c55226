import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, idOrderCursor, seedBook, storedPurchases } from "../support/factories";
import { errorCodes, getUrl, send, type HttpAnswer, startTestHttpServer } from "../support/http";

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db, { production: true });
  await seedBook(database.db, "1", customers(3));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

const JSON_POST = { "content-type": "application/json" };
const BUYERS = `query ($id: ID!, $first: Int, $after: String) { book(id: $id) { customersPurchased(first: $first, after: $after) { totalCount } } }`;
const ADD_BOOK = `mutation ($input: AddBookInput!) { addBook(input: $input) { id: databaseId } }`;
const RECORD = `mutation ($input: RecordPurchaseInput!) { recordPurchase(input: $input) { storedIn } }`;
const nested = (levels: number) => `{ book(id: "1") ${"{ title ".repeat(levels)}${"}".repeat(levels + 1)}`;
const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: books { totalCount }`).join(" ")} }`;

interface BadRequest {
  body?: unknown;
  method?: string;
  headers?: Record<string, string>;
  /** The code the refusal must carry, among its errors. */
  code: string;
}

const cases: [string, BadRequest][] = [
  ["a books cursor that is not base64 JSON", { body: { query: `{ books(after: "%%%") { totalCount } }` }, code: "BAD_USER_INPUT" }],
  [
    "a buyers cursor this API never issued",
    { body: { query: BUYERS, variables: { id: "1", after: "YXJyYXljb25uZWN0aW9uOi0x" } }, code: "BAD_USER_INPUT" },
  ],
  [
    "a books cursor naming an operator",
    {
      body: { query: `{ books(after: "${Buffer.from('{"id":{"$gt":""}}').toString("base64url")}") { totalCount } }` },
      code: "BAD_USER_INPUT",
    },
  ],
  ["first over 100", { body: { query: BUYERS, variables: { id: "1", first: 101 } }, code: "BAD_USER_INPUT" }],
  ["a negative first", { body: { query: `{ books(first: -1) { totalCount } }` }, code: "BAD_USER_INPUT" }],
  ["a first past 32 bits", { body: { query: BUYERS, variables: { id: "1", first: 2 ** 31 } }, code: "BAD_USER_INPUT" }],
  ["a fractional first in a variable", { body: { query: BUYERS, variables: { id: "1", first: 1.5 } }, code: "BAD_USER_INPUT" }],
  ["a fractional first in the query", { body: { query: `{ books(first: 1.5) { totalCount } }` }, code: "GRAPHQL_VALIDATION_FAILED" }],
  ["a first given as a string", { body: { query: BUYERS, variables: { id: "1", first: "10" } }, code: "BAD_USER_INPUT" }],
  [
    "a huge first that passes Int but not the cost limit",
    { body: { query: `{ books(first: 2000000000) { edges { node { id: databaseId } } } }` }, code: "QUERY_TOO_COMPLEX" },
  ],
  [
    "a 1 MB title",
    { body: { query: ADD_BOOK, variables: { input: { title: "t".repeat(1024 * 1024), author: "A" } } }, code: "PAYLOAD_TOO_LARGE" },
  ],
  [
    "a title over 500 characters",
    { body: { query: ADD_BOOK, variables: { input: { title: "t".repeat(501), author: "A" } } }, code: "BAD_USER_INPUT" },
  ],
  [
    "a customer id over 128 characters",
    { body: { query: RECORD, variables: { input: { bookId: "1", customerId: "c".repeat(129) } } }, code: "BAD_USER_INPUT" },
  ],
  [
    "a book id over 128 characters",
    { body: { query: `query ($id: ID!) { book(id: $id) { title } }`, variables: { id: "b".repeat(129) } }, code: "BAD_USER_INPUT" },
  ],
  [
    "a books cursor carrying a 50,000-character id",
    {
      body: {
        query: `query ($after: String) { books(after: $after) { totalCount } }`,
        variables: { after: idOrderCursor("b".repeat(50_000)) },
      },
      code: "BAD_USER_INPUT",
    },
  ],
  [
    "an operator object as a book id",
    { body: { query: `query ($id: ID!) { book(id: $id) { title } }`, variables: { id: { $gt: "" } } }, code: "BAD_USER_INPUT" },
  ],
  [
    "an operator object as a customer id",
    { body: { query: RECORD, variables: { input: { bookId: "1", customerId: { $ne: null } } } }, code: "BAD_USER_INPUT" },
  ],
  [
    "an operator smuggled into an input object",
    {
      body: { query: RECORD, variables: { input: { bookId: "1", customerId: "u", $set: { purchase_count: 0 } } } },
      code: "BAD_USER_INPUT",
    },
  ],
  ["a query nested 40 levels deep", { body: { query: nested(40) }, code: "QUERY_TOO_DEEP" }],
  ["a query 5,000 fields wide", { body: { query: `{ books { ${"totalCount ".repeat(5000)} } }` }, code: "GRAPHQL_PARSE_FAILED" }],
  ["an alias flood within the token limit", { body: { query: aliases(100) }, code: "TOO_MANY_ALIASES" }],
  ["an alias flood past the token limit", { body: { query: aliases(1000) }, code: "GRAPHQL_PARSE_FAILED" }],
  ["a batch of operations", { body: [{ query: "{ books { totalCount } }" }, { query: "{ books { totalCount } }" }], code: "BAD_REQUEST" }],
  [
    "a text/plain POST, which a cross-site form can send",
    { body: `{"query":"{ books { totalCount } }"}`, headers: { "content-type": "text/plain" }, code: "BAD_REQUEST" },
  ],
  [
    "a form-encoded POST",
    {
      body: "query=%7B%20books%20%7B%20totalCount%20%7D%20%7D",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      code: "BAD_REQUEST",
    },
  ],
  [
    "a mutation by GET, which a link or an image could send",
    {
      method: "GET",
      headers: {},
      body: { query: RECORD, variables: { input: { bookId: "1", customerId: "by-get" } } },
      code: "BAD_REQUEST",
    },
  ],
  ["a body that is not JSON", { body: `{"query": `, code: "BAD_REQUEST" }],
  ["a JSON body without a query", { body: { variables: {} }, code: "BAD_REQUEST" }],
];

async function sendBadRequest({ body, method, headers }: BadRequest): Promise<HttpAnswer> {
  if (method === "GET") return send(getUrl(server.url, body as { query: string }), undefined, { method, headers });
  return send(server.url, body, { headers: headers ?? JSON_POST });
}

describe("bad input in production", () => {
  it.each(cases)("answers %s with a coded error, no 5xx, no stack trace, and keeps serving", async (_case, request) => {
    const answer = await sendBadRequest(request);
    // Refused before execution: 4xx; refused by a resolver: 200 with errors, as GraphQL over HTTP answers.
    expect(answer.status).toBeLessThan(500);
    expect(errorCodes(answer)).toContain(request.code);
    for (const error of answer.json?.errors ?? []) {
      expect(typeof error.extensions?.code).toBe("string");
      expect(error.extensions).not.toHaveProperty("stacktrace");
    }
    const followUp = await send(server.url, { query: `{ book(id: "1") { purchaseCount } }` });
    expect(followUp.json).toEqual({ data: { book: { purchaseCount: 3 } } });
  });

  it("changes nothing when it refuses a write", async () => {
    for (const [, request] of cases) await sendBadRequest(request);
    expect(await storedPurchases(database.db, "1")).toEqual(customers(3));
    expect(await database.db.collection("sales").countDocuments()).toBe(1);
  });
});
