import { MongoClient } from "mongodb";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestApi, type TestApi } from "../support/api";
import { addBook } from "../support/factories";
import { errorCodes, send, startTestHttpServer } from "../support/http";

let api: TestApi;
let bookId: string;
beforeAll(async () => {
  api = await openTestApi();
  bookId = await addBook(api);
});
afterAll(() => api.close());

describe("bad input", () => {
  it.each([
    ["books first over 100", `{ books(first: 101) { totalCount } }`],
    ["books first negative", `{ books(first: -1) { totalCount } }`],
    ["books with a malformed cursor", `{ books(after: "not-a-cursor") { totalCount } }`],
  ])("answers BAD_USER_INPUT for %s", async (_case, query) => {
    const result = await api.execute(query);
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(["BAD_USER_INPUT"]);
  });

  it.each([
    ["first over 100", { first: 101 }],
    ["first negative", { first: -5 }],
    ["a malformed cursor", { after: "bm90LWEtY3Vyc29y" }],
    ["a book cursor", { after: "eyJpZCI6eyIkbnVtYmVySW50IjoiMiJ9fQ" }],
  ])("answers BAD_USER_INPUT for customersPurchased with %s", async (_case, args) => {
    const result = await api.execute(
      `query ($id: ID!, $first: Int, $after: String) { book(id: $id) { customersPurchased(first: $first, after: $after) { totalCount } } }`,
      {
        id: bookId,
        ...args,
      },
    );
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(["BAD_USER_INPUT"]);
    expect(result.errors?.[0]?.extensions).toHaveProperty("argumentName");
  });

  it("answers GraphQL's own validation errors with their code", async () => {
    const result = await api.execute(`{ books(first: "ten") { totalCount } }`);
    expect(result.errors?.[0]?.extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  it("rejects an operator object smuggled in as an id", async () => {
    const result = await api.execute(`query ($id: ID!) { book(id: $id) { id: databaseId } }`, { id: { $gt: "" } });
    expect(result.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
  });
});

describe("in production", () => {
  let production: TestApi;
  beforeAll(async () => void (production = await openTestApi({ production: true })));
  afterAll(() => production.close());

  it("hides an unexpected error's message and stack", async () => {
    await production.db.collection("sales").insertOne({ _id: "damaged" as never, author: "no title stored" });
    const result = await production.execute(`{ book(id: "damaged") { title } }`);
    expect(result.errors).toEqual([
      {
        message: "Internal server error.",
        path: ["book", "title"],
        locations: [{ line: 1, column: 25 }],
        extensions: { code: "INTERNAL_SERVER_ERROR" },
      },
    ]);
  });
});

describe("with the connection pool exhausted", () => {
  let crowded: MongoClient;
  let server: RunningServer;
  beforeAll(async () => {
    // One pooled connection, and a wait for it far shorter than a round trip: most of a burst cannot get one.
    crowded = new MongoClient(process.env.TEST_MONGODB_URI ?? "", { maxPoolSize: 1, waitQueueTimeoutMS: 1 });
    server = await startTestHttpServer(crowded.db(api.db.databaseName), { production: true });
  });
  afterAll(async () => {
    await server.stop();
    await crowded.close();
  });

  it("answers the requests that got no connection with DATABASE_UNAVAILABLE, never INTERNAL_SERVER_ERROR", async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => send(server.url, { query: `{ books(first: 5) { totalCount } }` })));
    const codes = answers.flatMap(errorCodes);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes)).toEqual(new Set(["DATABASE_UNAVAILABLE"]));
  });
});
