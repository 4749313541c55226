import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";

// One engine: the API with traces on runs the same compiled operations as without, so every operation of the
// storefronts and the docs answers byte for byte alike, errors included.

const ROOT = join(__dirname, "..", "..");
const STOREFRONT = join(ROOT, "examples", "storefront", "operations");
const WEB_STOREFRONT = join(ROOT, "examples", "web-storefront", "src", "__generated__", "persisted-documents.json");

/** The operations, each with variables that reach its every field: books 1 and 2 hold buyers, book 3 is an outlier. */
const VARIABLES: Readonly<Record<string, Record<string, unknown>>> = {
  BookBuyers: { id: "3", first: 20, after: null },
  BrowseBooks: { first: 3, orderBy: { field: "TITLE", direction: "DESC" }, search: "Seeded" },
  ListBooks: { first: 5, buyers: 3 },
  ProductPage: { id: "1", recentBuyers: 3, recommendations: 3 },
  StorefrontShelf: { first: 3, filter: { author: "Author" } },
  StorefrontBookPage: { id: "3", buyers: 5 },
};

/** The docs' own: README's listing, caching.md's Shelf, a book that is not there, and a refusal inside the answer. */
const DOCS = [
  `{ books(first: 2) { totalCount edges { node { databaseId title purchaseCount } } } }`,
  `query Shelf($first: Int) { books(first: $first) { totalCount edges { node { id title purchaseCount } } } }`,
  `{ book(id: "404") { title } }`,
  `{ book(id: "1") { title customersPurchased(first: -1) { totalCount } } }`,
];

function operationName(text: string): string | undefined {
  return /^\s*(?:query|mutation|subscription)\s+(\w+)/m.exec(text)?.[1];
}

/** Every query the storefronts send (their writes and subscriptions apart), and the docs'. */
function operations(): { query: string; variables: Record<string, unknown> }[] {
  const storefront = readdirSync(STOREFRONT)
    .filter((file) => file.endsWith(".graphql"))
    .map((file) => readFileSync(join(STOREFRONT, file), "utf8"));
  const web = Object.values(JSON.parse(readFileSync(WEB_STOREFRONT, "utf8")) as Record<string, string>);
  const queries = [...storefront, ...web].filter((text) => /^\s*query\s/m.test(text));
  return [...queries, ...DOCS].map((query) => ({ query, variables: VARIABLES[operationName(query) ?? ""] ?? { first: 2 } }));
}

// Two API processes start, one with the OpenTelemetry SDK: as the traced API processes of tracing.test.ts, 10 s each on
// an idle machine and over a minute on a busy one.
jest.setTimeout(180_000);

let database: TestDatabase;
let traced: ApiProcess;
let untraced: ApiProcess;
beforeAll(async () => {
  database = await openTestDatabase();
  await seedBook(database.db, "1", customers(3));
  await seedBook(database.db, "2", customers(2, 1));
  await seedBook(database.db, "3", customers(70));
  const env = { MONGODB_DB: database.db.databaseName };
  [traced, untraced] = await Promise.all([
    startApiProcess("test/support/traced-api-process.ts", env, { ipc: true }),
    startApiProcess("src/cli/start.ts", env),
  ]);
});
afterAll(async () => {
  await Promise.all([traced?.stop(), untraced?.stop()]);
  await database.close();
});

/** The same request to the traced and the untraced API, each answer as its status and body. */
function bothAnswers(request: (url: string) => Promise<Response>): Promise<string[]> {
  return Promise.all(
    [traced, untraced].map(async ({ url }) => {
      const response = await request(url);
      return `${response.status} ${await response.text()}`;
    }),
  );
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

it("answers every storefront and docs query byte for byte alike with traces on and off", async () => {
  const sent = operations();
  expect(sent.map(({ query }) => operationName(query))).toEqual(
    expect.arrayContaining(["BookBuyers", "BrowseBooks", "ListBooks", "ProductPage", "StorefrontShelf", "StorefrontBookPage", "Shelf"]),
  );
  for (const body of sent) {
    const [withTraces, without] = await bothAnswers((url) => post(url, body));
    expect([operationName(body.query), withTraces]).toEqual([operationName(body.query), without]);
    expect(without).not.toMatch(/INTERNAL_SERVER_ERROR/);
  }
});

/** Issue 51's requests (each once ended the process, ran unchecked or answered 500), by POST and by GET. */
const CRITICAL = [
  {
    query: `query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }`,
    variables: {
      r: [
        { __typename: "Book", id: "x".repeat(200) },
        { __typename: "Customer", databaseId: "" },
      ],
    },
  },
  {
    query: `query ($f: BookFilter) { books(first: 0, filter: $f) { totalCount } customer(id: "user000") { booksPurchased(first: 5) { edges { node { title } } } } }`,
    variables: { f: [] },
  },
  { query: `query ($f: Int! = 2) { books(first: $f) { edges { node { databaseId } } } }`, variables: {} },
  { query: `query ($i: ID = "2") { book(id: $i) { title } }`, variables: { i: null } },
];

it("answers issue 51's requests byte for byte alike with traces on and off, by POST and GET, and both processes live on", async () => {
  for (const body of CRITICAL) {
    const get = `?query=${encodeURIComponent(body.query)}&variables=${encodeURIComponent(JSON.stringify(body.variables))}`;
    for (const method of ["POST", "GET"]) {
      const [withTraces, without] = await bothAnswers((url) =>
        method === "POST" ? post(url, body) : fetch(`${url}${get}`, { headers: { "apollo-require-preflight": "true" } }),
      );
      expect([method, body.query, withTraces]).toEqual([method, body.query, without]);
      expect(without).not.toMatch(/INTERNAL_SERVER_ERROR/);
    }
  }
  const health = await Promise.all([traced, untraced].map(({ url }) => fetch(url.replace(/\/graphql$/, "/healthz")).then((r) => r.status)));
  expect({ health, exited: [traced.child.exitCode, untraced.child.exitCode] }).toEqual({ health: [200, 200], exited: [null, null] });
});
