import net, { type AddressInfo } from "node:net";
import { getOperationAST, Kind, parse, print, type DocumentNode, type FieldNode, type OperationDefinitionNode } from "graphql";
import { MongoClient } from "mongodb";
import pino from "pino";
import { StorefrontClient } from "../../examples/storefront/client";
import { BookBuyersDocument, ListBooksDocument } from "../../examples/storefront/__generated__/graphql";
import { scopesNeeded } from "../../src/graphql/execution/access";
import { readFieldCosts } from "../../src/graphql/limits/field-costs";
import { COMMAND_COST, operationCost, REQUEST_LIMITS } from "../../src/graphql/limits/operation";
import { schema } from "../../src/graphql/schema/schema";
import { startHttpServer, type RunningServer } from "../../src/graphql/transport/server";
import { TEST_SETTINGS } from "../support/api";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, send, startTestHttpServer } from "../support/http";

const LARGEST_FIRST = 100;

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
  await seedBook(database.db, "1", customers(120));
  await seedBook(database.db, "2", customers(3));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

/** The storefront's catalog page asked `times` over in one request, each copy under its own alias. */
function listBooksTimes(times: number): string {
  const operation = ListBooksDocument.definitions[0] as OperationDefinitionNode;
  const [books] = operation.selectionSet.selections as FieldNode[];
  const copies = Array.from({ length: times }, (_, index): FieldNode => ({ ...books!, alias: { kind: Kind.NAME, value: `copy${index}` } }));
  return print({ ...ListBooksDocument, definitions: [{ ...operation, selectionSet: { ...operation.selectionSet, selections: copies } }] });
}

const costOf = (document: DocumentNode, variables: Record<string, unknown>) =>
  operationCost(schema, document, getOperationAST(document)!, variables)!;

const selections = (field: string, count: number, each: (index: number) => string) =>
  `{ ${Array.from({ length: count }, (_, index) => each(index)).join(" ")} ${field} }`;

describe("the storefront's operations", () => {
  it("pass at the largest first they may ask for", async () => {
    const storefront = new StorefrontClient(server.url);
    const { books } = await storefront.listBooks(LARGEST_FIRST, LARGEST_FIRST);
    expect(books.edges.map(({ node }) => node.customersPurchased.edges.length)).toEqual([100, 3]);
    const { book } = await storefront.bookBuyers("1", LARGEST_FIRST);
    expect(book?.customersPurchased.edges).toHaveLength(100);
    expect(await storefront.recordPurchase("2", "user03", "order-1/line-1")).toMatchObject({ recordPurchase: { storedIn: "EMBEDDED" } });
  });

  it("cost at most a third of the cost limit at that size", () => {
    expect(costOf(ListBooksDocument, { first: LARGEST_FIRST, buyers: LARGEST_FIRST }) * 3).toBeLessThanOrEqual(REQUEST_LIMITS.maxCost);
    expect(costOf(BookBuyersDocument, { id: "1", first: LARGEST_FIRST }) * 3).toBeLessThanOrEqual(REQUEST_LIMITS.maxCost);
  });

  it("are refused with QUERY_TOO_COMPLEX when one request asks for ten times the largest catalog page", async () => {
    const answer = await send(server.url, { query: listBooksTimes(10), variables: { first: LARGEST_FIRST, buyers: LARGEST_FIRST } });
    expect([answer.status, errorCodes(answer)]).toEqual([400, ["QUERY_TOO_COMPLEX"]]);
  });

  it("are weighed with each request's own variables when the same query text comes again", async () => {
    const query = listBooksTimes(10);
    const statuses = [];
    for (const size of [1, LARGEST_FIRST, 1, LARGEST_FIRST]) {
      const answer = await send(server.url, { query, variables: { first: size, buyers: size } });
      statuses.push([answer.status, errorCodes(answer)]);
    }
    const refused = [400, ["QUERY_TOO_COMPLEX"]];
    expect(statuses).toEqual([[200, []], refused, [200, []], refused]);
  });
});

describe("the cost of an operation", () => {
  const buyers = (first: string) => parse(`{ book(id: "1") { customersPurchased${first} { edges { node { id: databaseId } } } } }`);

  it("grows with first", () => {
    expect(costOf(buyers("(first: 100)"), {})).toBeGreaterThan(10 * costOf(buyers("(first: 5)"), {}));
  });

  it("counts a list field without first, or with first: null, at the schema's default of 20", () => {
    expect(costOf(buyers(""), {})).toBe(costOf(buyers("(first: 20)"), {}));
    expect(costOf(buyers("(first: null)"), {})).toBe(costOf(buyers("(first: 20)"), {}));
  });

  it(`weighs the commands a field sends per parent at its @cost weight (${COMMAND_COST} each), once per parent however the parents come`, () => {
    const alsoBought = "alsoBought(first: 1) { sharedBuyers }";
    const weight = readFieldCosts(schema).get("Book.alsoBought")!.weight;
    const one = costOf(parse(`{ book(id: "1") { ${alsoBought} } }`), {});
    const entities = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { ${alsoBought} } } }`;
    const representations = Array.from({ length: 10 }, (_, index) => ({ __typename: "Book", id: String(index) }));

    // Its aggregation, and the load of the books it recommends (test/api/cost-directives.test.ts measures both).
    expect(weight).toBe(2 * COMMAND_COST);
    expect(one).toBe(1 + weight + 1 + 1);
    expect(costOf(parse(entities), { r: representations })).toBe(1 + 10 * (weight + 2));
    expect(costOf(parse(`{ a: book(id: "1") { ${alsoBought} } b: book(id: "2") { ${alsoBought} } }`), {})).toBe(2 * one);
    expect(costOf(parse(`{ books(first: 10) { edges { node { ${alsoBought} } } } }`), {})).toBeGreaterThan(10 * weight);
  });

  it("weighs a field that sends nothing for first: 0 at no command", () => {
    expect(costOf(parse(`{ book(id: "1") { alsoBought(first: 0) { sharedBuyers } } }`), {})).toBe(2);
  });

  it("leaves a null @include condition to the input check, with every scope the field would need", () => {
    const query = parse(`query ($x: Boolean = true) { book(id: "1") { alsoBought @include(if: $x) { sharedBuyers } } }`);
    const operation = getOperationAST(query)!;

    expect(operationCost(schema, query, operation, { x: null })).toBeUndefined();
    expect([...scopesNeeded(schema, operation, {}, { x: null }).keys()]).toEqual(["purchases:read"]);
  });
});

describe("requests over a limit", () => {
  it.each([
    [
      "deeper than the depth limit",
      `{ __type(name: "Book") { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }`,
      "QUERY_TOO_DEEP",
    ],
    [
      "with more aliases than allowed",
      selections("", REQUEST_LIMITS.maxAliases + 1, (index) => `a${index}: salesStats { books }`),
      "TOO_MANY_ALIASES",
    ],
    [
      "with more directives than allowed",
      `{ books { ${"totalCount @include(if: true) ".repeat(REQUEST_LIMITS.maxDirectives + 1)} } }`,
      "TOO_MANY_DIRECTIVES",
    ],
    ["with more tokens than allowed", `{ books { ${"totalCount ".repeat(REQUEST_LIMITS.maxTokens)} } }`, "GRAPHQL_PARSE_FAILED"],
  ])("are refused before any resolver runs when %s", async (_case, query, code) => {
    database.commands.reset();
    const answer = await send(server.url, { query });
    expect([answer.status, errorCodes(answer)[0]]).toEqual([400, code]);
    expect(database.commands.names()).toEqual([]);
  });

  it("pass at exactly the alias and directive limits", async () => {
    const aliases = await send(server.url, {
      query: selections("", REQUEST_LIMITS.maxAliases, (index) => `a${index}: book(id: "2") { id }`),
    });
    expect(aliases.json?.errors).toBeUndefined();
    const directives = await send(server.url, {
      query: `{ books { ${"totalCount @include(if: true) ".repeat(REQUEST_LIMITS.maxDirectives)} } }`,
    });
    expect(directives.json).toEqual({ data: { books: { totalCount: 2 } } });
  });

  it("answer a body over 100 kB with a coded 413 in JSON, not Express's HTML page", async () => {
    const answer = await send(server.url, { query: "{ books { totalCount } }", variables: { padding: "x".repeat(100 * 1024) } });
    expect([answer.status, errorCodes(answer)]).toEqual([413, ["PAYLOAD_TOO_LARGE"]]);
  });

  it("answer a body that is not JSON with a coded 400", async () => {
    const answer = await send(server.url, `{"query": "{ books { totalCount } }"`);
    expect([answer.status, errorCodes(answer)]).toEqual([400, ["BAD_REQUEST"]]);
  });

  it("refuse a batch of operations in one request, since each would pass every limit on its own", async () => {
    const answer = await send(server.url, [{ query: "{ books { totalCount } }" }, { query: "{ books { totalCount } }" }]);
    expect([answer.status, errorCodes(answer)]).toEqual([400, ["BAD_REQUEST"]]);
  });
});

/** `__type` nested `levels` fields deep, the chain below `fields { type` cut into named fragments and inline fragments. */
function typeChainThroughFragments(levels: number): string {
  const chain = (count: number, innermost: string) => `${"ofType { ".repeat(count)}${innermost}${" }".repeat(count)}`;
  // __type, fields, type: 3 levels; then ofType levels down to `name`, split across two named fragments and an inline one.
  const ofTypes = levels - 4;
  const upper = Math.floor(ofTypes / 2);
  return `
    query Deep { __type(name: "Book") { fields { type { ...Upper } } } }
    fragment Upper on __Type { ${chain(upper, "...Lower")} }
    fragment Lower on __Type { ... on __Type { ${chain(ofTypes - upper, "name")} } }
  `;
}

describe("the depth limit", () => {
  // The catalog page as Relay composes it from components: 7 levels of fields, two fragment spreads.
  const relayCatalogPage = `
    query CatalogPage($first: Int!, $buyers: Int!) { books(first: $first) { ...BookList_books } }
    fragment BookList_books on BookConnection { totalCount edges { node { ...BookCard_book } } }
    fragment BookCard_book on Book { id: databaseId title customersPurchased(first: $buyers) { edges { node { id: databaseId } } } }
  `;

  it("counts levels of fields, so the catalog page composed of Relay fragments passes", async () => {
    const answer = await send(server.url, { query: relayCatalogPage, variables: { first: 2, buyers: 2 } });
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.json?.data).toMatchObject({ books: { totalCount: 2, edges: [{ node: { id: "1" } }, { node: { id: "2" } }] } });
  });

  it("passes a query exactly at the limit however its fragments split it", async () => {
    const answer = await send(server.url, { query: typeChainThroughFragments(REQUEST_LIMITS.maxDepth) });
    expect(answer.json?.errors).toBeUndefined();
  });

  it("refuses a query one level over the limit with QUERY_TOO_DEEP before any resolver runs, fragments or not", async () => {
    database.commands.reset();
    const answer = await send(server.url, { query: typeChainThroughFragments(REQUEST_LIMITS.maxDepth + 1) });
    expect([answer.status, errorCodes(answer)]).toEqual([400, ["QUERY_TOO_DEEP"]]);
    expect(database.commands.names()).toEqual([]);
  });

  it("words a depth refusal as the limit it is, not as a syntax error", async () => {
    const answer = await send(server.url, { query: typeChainThroughFragments(REQUEST_LIMITS.maxDepth + 1) });
    const [message] = (answer.json?.errors ?? []).map((error) => error.message);
    expect(message).toMatch(new RegExp(`^Query depth limit of ${REQUEST_LIMITS.maxDepth} exceeded.*Select fewer nested levels`));
  });

  it("counts a fragment spread twice in one operation at the depth of each spread", async () => {
    // Shallow first, deep second: a depth remembered from the first spread must not hide the second.
    const query = `
      query Twice { shallow: __type(name: "Book") { ...Chain } deep: __type(name: "Book") { fields { type { ofType { ofType { ofType { ofType { ...Chain } } } } } } } }
      fragment Chain on __Type { ofType { ofType { ofType { name } } } }
    `;
    const answer = await send(server.url, { query });
    expect([answer.status, errorCodes(answer)]).toEqual([400, ["QUERY_TOO_DEEP"]]);
  });
});

describe("the request time limit", () => {
  // A peer that accepts connections and never answers: every database operation waits.
  let blackHole: net.Server;
  const held = new Set<net.Socket>();
  let client: MongoClient;
  let slowServer: RunningServer;
  beforeAll(async () => {
    blackHole = net.createServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    const { port } = blackHole.address() as AddressInfo;
    client = new MongoClient(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 20_000, connectTimeoutMS: 20_000 });
    const options = {
      db: client.db("limits"),
      settings: TEST_SETTINGS,
      logger: pino({ level: "silent" }),
      production: true,
      requestTimeoutMs: 300,
    };
    slowServer = await startHttpServer(options, 0);
  });
  afterAll(async () => {
    await client.close();
    await slowServer.stop();
    for (const socket of held) socket.destroy();
    blackHole.close();
  });

  it("ends a request still waiting at the limit with 503 REQUEST_TIMEOUT", async () => {
    const answer = await send(slowServer.url, { query: `{ book(id: "1") { title } }` });
    expect([answer.status, errorCodes(answer)]).toEqual([503, ["REQUEST_TIMEOUT"]]);
  });

  it("keeps serving after a request has timed out", async () => {
    await send(slowServer.url, { query: `{ book(id: "1") { title } }` });
    const answer = await send(slowServer.url, { query: "{ __typename }" });
    expect(answer.json).toEqual({ data: { __typename: "Query" } });
  });
});

describe("in production", () => {
  let production: RunningServer;
  beforeAll(async () => {
    production = await startTestHttpServer(database.db, { production: true });
  });
  afterAll(() => production.stop());

  it("shows no Sandbox to a browser", async () => {
    const browser = { method: "GET", headers: { accept: "text/html", "apollo-require-preflight": "true" } };
    expect((await send(server.url, undefined, browser)).contentType).toContain("text/html");
    const answer = await send(production.url, undefined, browser);
    expect(answer.contentType).not.toContain("text/html");
    expect(answer.status).toBeLessThan(500);
  });

  it("refuses introspection", async () => {
    const answer = await send(production.url, { query: "{ __schema { types { name } } }" });
    expect(errorCodes(answer)).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
  });

  it("suggests no field names, which would reveal the schema without introspection", async () => {
    const inDevelopment = await send(server.url, { query: "{ boks { totalCount } }" });
    expect(inDevelopment.json?.errors?.[0]?.message).toMatch(/Did you mean "books?"/);
    const inProduction = await send(production.url, { query: "{ boks { totalCount } }" });
    expect(errorCodes(inProduction)).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
    expect(inProduction.json?.errors?.[0]?.message).not.toMatch(/Did you mean|"books?"/);
  });
});
