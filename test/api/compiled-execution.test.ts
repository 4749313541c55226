import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSchema, execute, getOperationAST, parse, type ExecutionResult, type GraphQLError, type GraphQLSchema } from "graphql";
import { unwrapResolverError } from "@apollo/server/errors";
import { identifyCaller } from "../../src/auth/principal";
import { compiledExecution, compileOperation, type InterpretedReason } from "../../src/graphql/execution/compiled-execution";
import { createServerState, type ServerState } from "../../src/graphql/execution/context";
import { buildApiSchema, schema } from "../../src/graphql/schema/schema";
import { coerceVariables } from "../../src/graphql/execution/variables";
import { TEST_SETTINGS } from "../support/api";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { bookGlobalId } from "../../src/graphql/schema/global-ids";
import { parseBookId } from "../../src/sales/book-ids";
import { WITHOUT_BUYERS } from "../../src/sales/books";

/**
 * The same operations through graphql-jit (the adapter Apollo runs as its gateway executor) and through graphql-js'
 * `execute`, each with a fresh request context, on one database: answers and errors must agree field by field.
 */

const STOREFRONT = join(__dirname, "..", "..", "examples", "storefront", "operations");
/** The storefront's reads; RecordPurchase writes, so a second run would answer differently by design. */
const storefrontOperations = readdirSync(STOREFRONT)
  .filter((file) => file.endsWith(".graphql") && file !== "RecordPurchase.graphql")
  .map((file) => readFileSync(join(STOREFRONT, file), "utf8"));

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

const [ListBooks, ProductPage, BookBuyers, BrowseBooks] = ["ListBooks", "ProductPage", "BookBuyers", "BrowseBooks"].map((name) =>
  storefrontOperations.find((text) => text.includes(`query ${name}(`))!,
) as [string, string, string, string];

// Relay's refetch query for the BookBuyers_book fragment of test/relay/fixtures, as relay-compiler writes it.
const RELAY_REFETCH = `query BookBuyersPaginationQuery($count: Int = 2, $cursor: String, $id: ID!) {
  node(id: $id) { __typename ...BookBuyers_book_1G22uz id }
}
fragment BookBuyers_book_1G22uz on Book {
  title
  customersPurchased(first: $count, after: $cursor) {
    edges { node { databaseId id __typename } cursor }
    pageInfo { endCursor hasNextPage }
  }
  id
}`;

const BOOK_NODE_ID = bookGlobalId(parseBookId("1"));

const cases: Case[] = [
  { name: "storefront ListBooks", query: ListBooks, variables: { first: 5, buyers: 3 } },
  { name: "storefront ProductPage", query: ProductPage, variables: { id: "1", recentBuyers: 3, recommendations: 3 } },
  {
    name: "storefront ProductPage of a book it does not hold",
    query: ProductPage,
    variables: { id: "404", recentBuyers: 3, recommendations: 3 },
  },
  { name: "storefront BookBuyers of an outlier, second page", query: BookBuyers, variables: { id: "3", first: 20, after: null } },
  { name: "storefront BrowseBooks by title", query: BrowseBooks, variables: { first: 3, orderBy: { field: "TITLE", direction: "DESC" } } },
  { name: "storefront BrowseBooks search", query: BrowseBooks, variables: { first: 3, search: "Seeded" } },
  { name: "README's listing", query: `{ books(first: 2) { totalCount edges { node { databaseId title purchaseCount } } } }` },
  {
    name: "caching.md's Shelf",
    query: `query Shelf($first: Int) { books(first: $first) { totalCount edges { node { id title purchaseCount } } } }`,
    variables: { first: 5 },
  },
  { name: "Relay refetch through node(id:)", query: RELAY_REFETCH, variables: { id: BOOK_NODE_ID, count: 2 } },
  { name: "Relay refetch, default count", query: RELAY_REFETCH, variables: { id: BOOK_NODE_ID } },
  {
    name: "Federation _entities, books and customers, one missing",
    query: `query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Book { id title purchaseCount } ... on Customer { id: databaseId booksPurchased(first: 2) { edges { node { databaseId } } } } } }`,
    variables: {
      r: [
        { __typename: "Book", id: "2" },
        { __typename: "Customer", id: "user01" },
        { __typename: "Book", id: "404" },
      ],
    },
  },
  {
    name: "Federation _entities, representation without id",
    query: `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { title } } }`,
    variables: { r: [{ __typename: "Book" }] },
  },
  { name: "Federation _service", query: `{ _service { sdl } }` },
  { name: "__typename alone", query: `{ __typename }` },
  {
    name: "@skip and @include by variables and literals",
    query: `query ($with: Boolean!, $without: Boolean!) { book(id: "1") { title @include(if: $with) author @skip(if: $with) year @include(if: $without) purchaseCount @skip(if: false) ... on Book @include(if: $with) { hasExtras } } }`,
    variables: { with: true, without: false },
  },
  {
    name: "aliases, fragments and variables",
    query: `query Two($a: ID!, $b: ID!) { first: book(id: $a) { ...Facts } second: book(id: $b) { ...Facts name: title } } fragment Facts on Book { databaseId title count: purchaseCount }`,
    variables: { a: "1", b: "2" },
    operationName: "Two",
  },
  {
    name: "one of two operations, chosen by name",
    query: `query A { book(id: "1") { title } } query B { book(id: "2") { author } }`,
    operationName: "B",
  },
  {
    name: "null from a failed non-null field bubbles to its nullable parent",
    query: `{ damaged: book(id: "damaged") { databaseId title author } fine: book(id: "1") { title } }`,
  },
  {
    name: "errors in several list items",
    query: `query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Book { title } ... on Customer { databaseId } } }`,
    variables: {
      r: [
        { __typename: "Book", id: "x".repeat(200) },
        { __typename: "Book", id: "404" },
        { __typename: "Customer", databaseId: "y".repeat(200) },
        { __typename: "Book", databaseId: "z".repeat(200) },
        { __typename: "Book", id: "1" },
      ],
    },
  },
  { name: "an error inside a list item", query: `{ books(first: 100) { edges { node { databaseId title } } } }` },
  { name: "a resolver's refusal of an argument", query: `{ books(first: -1) { totalCount } }` },
  { name: "a refusal in a nested field", query: `{ book(id: "1") { customersPurchased(first: -3) { totalCount } } }` },
  { name: "node(id:) of a malformed global id", query: `{ node(id: "not a global id") { id } }` },
];

/** What a client sees of an error, and what the error formatter reads: the original error's class and code. */
function comparable(error: GraphQLError) {
  const original = unwrapResolverError(error) as Error & { code?: unknown };
  return {
    message: error.message,
    path: error.path,
    locations: error.locations,
    extensions: error.extensions,
    original: original === error ? undefined : { name: original.constructor.name, message: original.message, code: original.code },
  };
}

/** The data as a client reads it, serialized: graphql-jit leaves a failed list item undefined where graphql-js writes null. */
function comparableResult(result: ExecutionResult) {
  return { data: result.data && JSON.parse(JSON.stringify(result.data)), errors: result.errors?.map(comparable) };
}

let database: TestDatabase;
let server: ServerState;
type Executor = NonNullable<Awaited<ReturnType<ReturnType<typeof compiledExecution>["load"]>>["executor"]>;

/** The adapter's executor, as Apollo loads it, compiling against `compiledSchema`; `reasons` collects each operation it leaves to graphql-js. */
async function loadExecutor(compiledSchema: GraphQLSchema, reasons: InterpretedReason[]): Promise<Executor> {
  const gateway = compiledExecution({ schema, compiledSchema, onInterpreted: (reason) => reasons.push(reason) });
  return (await gateway.load({ apollo: {} })).executor!;
}

const interpreted: InterpretedReason[] = [];
let compiled: Executor;

beforeAll(async () => {
  database = await openTestDatabase();
  server = createServerState({ db: database.db });
  await seedBook(database.db, "1", customers(5));
  await seedBook(database.db, "2", customers(3, 3));
  // An outlier: past the test threshold of 50, with extra sales.
  await seedBook(database.db, "3", customers(70));
  await database.db.collection("sales").insertOne({ _id: "damaged" as never, author: "no title stored" });
  compiled = await loadExecutor(buildApiSchema(), interpreted);
});

afterAll(async () => {
  await server.purchases.stop();
  await database.close();
});

function context() {
  return server.contextFor(TEST_SETTINGS, identifyCaller(undefined, undefined));
}

async function runThroughAdapter(testCase: Case, executor: Executor = compiled): Promise<ExecutionResult> {
  const { query, variables, operationName } = testCase;
  const document = parse(query);
  const operation = getOperationAST(document, operationName);
  // As Apollo's pipeline hands them on, coerced by the operation pipeline: every case's variables coerce.
  const coerced = operation ? coerceVariables(schema, operation, variables) : undefined;
  if (coerced && "refusal" in coerced) throw coerced.refusal;
  const request = {
    request: { query, ...(coerced ? { variables: coerced.variables } : {}), ...(operationName ? { operationName } : {}) },
    document,
    operation: operation ?? undefined,
    operationName: operation?.name?.value ?? null,
    queryHash: createHash("sha256").update(query).digest("hex"),
    source: query,
    schema,
    context: context(),
  };
  // The executor reads only what Apollo's request context hands every executor; the rest is Apollo's bookkeeping.
  return executor(request as unknown as Parameters<Executor>[0]);
}

async function runInterpreted({ query, variables, operationName }: Case): Promise<ExecutionResult> {
  return execute({ schema, document: parse(query), contextValue: context(), variableValues: variables, operationName });
}

describe("compiled execution against graphql-js", () => {
  it.each(cases.map((testCase) => [testCase.name, testCase] as const))("answers %s alike, errors included", async (_name, testCase) => {
    const [fast, reference] = await Promise.all([runThroughAdapter(testCase), runInterpreted(testCase)]);
    expect(comparableResult(fast)).toEqual(comparableResult(reference));
  });

  it("compiled every operation of the set, none left to graphql-js", () => {
    expect(interpreted).toEqual([]);
  });

  it("holds the answers the set is meant to probe: data, and nulls from failed resolvers", async () => {
    const damaged = await runThroughAdapter(cases.find((testCase) => testCase.name.startsWith("null from a failed"))!);
    expect(damaged.data).toEqual({ damaged: null, fine: { title: "Seeded 1" } });
    expect(damaged.errors?.map((error) => error.path)).toEqual([["damaged", "title"]]);
  });

  it.each([
    ["a variable that is not an ID", { id: { $gt: "" } }],
    ["a missing required variable", {}],
  ])("leaves %s to the one coercion before it, which refuses it in graphql-js' words", async (_name, variables) => {
    const query = `query ($id: ID!) { book(id: $id) { title } }`;
    const coerced = coerceVariables(schema, getOperationAST(parse(query))!, variables);
    const reference = await runInterpreted({ name: "", query, variables });
    expect("refusal" in coerced && coerced.refusal.message).toBe(reference.errors?.[0]?.message);
    expect("refusal" in coerced && coerced.refusal.nodes?.[0]?.kind).toBe("VariableDefinition");
  });

  it("runs a compiled operation again with other variables", async () => {
    const testCase = cases.find((candidate) => candidate.name.startsWith("storefront BookBuyers"))!;
    const pageSizes = [];
    for (const first of [20, 5]) {
      const { data } = await runThroughAdapter({ ...testCase, variables: { ...testCase.variables, first } });
      pageSizes.push((data as { book: { customersPurchased: { edges: unknown[] } } }).book.customersPurchased.edges.length);
    }
    expect(pageSizes).toEqual([20, 5]);
  });
});

describe("the fallback to graphql-js", () => {
  it("runs an operation graphql-jit cannot compile through graphql-js, and counts it", async () => {
    const reasons: InterpretedReason[] = [];
    const testCase = { name: "browse", query: BrowseBooks, variables: { first: 2, orderBy: { field: "TITLE", direction: "ASC" } } };
    // A schema without the input types its variables declare: graphql-jit refuses to compile it, as any operation it cannot handle.
    const executor = await loadExecutor(buildSchema("type Query { other: Int }"), reasons);
    const result = await runThroughAdapter(testCase, executor);
    expect(comparableResult(result)).toEqual(comparableResult(await runInterpreted(testCase)));
    expect(reasons).toEqual(["not_compilable"]);
  });
});

/**
 * A shared subscription execution compiles its operation once and runs it for each value, the value as its root:
 * the same value through `compileOperation` and through graphql-js' `execute` must answer alike.
 */
describe("a subscription's operation compiled once, against graphql-js", () => {
  const compiledSchema = buildApiSchema();

  /** A value as the live sales hand it on: the book as stored, without its buyers. */
  async function bookEvent(id: string) {
    const value = await database.db
      .collection("sales")
      .findOne({ _id: (id === "damaged" ? id : parseBookId(id)) as never }, { projection: WITHOUT_BUYERS });
    return { value, key: id, writtenAt: new Date() };
  }

  const subscriptionCases = [
    {
      name: "bookSales with its newest buyers and a variable in a nested field",
      query: `subscription Sales($ids: [ID!]!, $n: Int!) { bookSales(ids: $ids) { databaseId title purchaseCount hasExtras customersPurchased(last: $n) { edges { node { databaseId } } } } }`,
      variables: { ids: ["3"], n: 2 },
      root: () => bookEvent("3"),
    },
    {
      name: "bookSales of a book whose title is not stored: null from a non-null field, and its error",
      query: `subscription Damaged($ids: [ID!]!) { bookSales(ids: $ids) { databaseId title } }`,
      variables: { ids: ["damaged"] },
      root: () => bookEvent("damaged"),
    },
    {
      name: "bestsellers with fragments and aliases",
      query: `subscription Top { list: bestsellers(top: 2) { ...Figures } } fragment Figures on Book { id count: purchaseCount author }`,
      root: async () => ({ value: [(await bookEvent("3")).value, (await bookEvent("1")).value], key: "list" }),
    },
    {
      name: "a refusal in a nested field",
      query: `subscription Refused { bookSales(ids: ["1"]) { customersPurchased(first: -3) { totalCount } } }`,
      root: () => bookEvent("1"),
    },
  ];

  it.each(subscriptionCases.map((testCase) => [testCase.name, testCase] as const))(
    "answers %s alike, errors included",
    async (_name, testCase) => {
      const document = parse(testCase.query);
      const run = compileOperation(compiledSchema, document, undefined);
      expect(run).toBeDefined();
      const variables = testCase.variables ?? {};
      const event = await testCase.root();
      const [fast, reference] = await Promise.all([
        run!(event, context(), variables),
        execute({ schema, document, rootValue: event, contextValue: context(), variableValues: variables }),
      ]);
      expect(comparableResult(fast)).toEqual(comparableResult(reference));
    },
  );

  it("holds the answers the set is meant to probe: data, a null from a failed resolver, and a refusal", async () => {
    const answers = await Promise.all(
      subscriptionCases.map(async (testCase) =>
        compileOperation(compiledSchema, parse(testCase.query))!(await testCase.root(), context(), testCase.variables ?? {}),
      ),
    );
    expect(answers[0]?.data).toEqual({
      bookSales: {
        databaseId: "3",
        title: "Seeded 3",
        purchaseCount: 70,
        hasExtras: true,
        customersPurchased: { edges: [expect.anything(), expect.anything()] },
      },
    });
    expect(answers[1]).toMatchObject({ data: null, errors: [{ path: ["bookSales", "title"] }] });
    expect(answers[2]?.data).toEqual({ list: [expect.objectContaining({ count: 70 }), expect.objectContaining({ count: 5 })] });
    expect(answers[3]?.errors?.[0]?.path).toEqual(["bookSales", "customersPurchased"]);
  });
});
