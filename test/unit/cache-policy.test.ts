import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { ApolloServerPluginCacheControl } from "@apollo/server/plugin/cacheControl";
import { buildSchema, getOperationAST, Kind, parse, type FragmentDefinitionNode } from "graphql";
import {
  cacheControlHeaderPlugin,
  operationCachePolicy,
  staticCachePolicyPlugin,
  type CacheHint,
} from "../../src/graphql/caching/cache-policy";

/**
 * The static policy against Apollo's cache control plugin, which learns the same hints from graphql-js' resolver
 * hooks, on a small schema shaped as the API's: a public catalog, private fields and types, a mutation never cached.
 */
const SDL = `
  enum CacheControlScope { PUBLIC PRIVATE }
  directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
  interface Node { id: ID! }
  type Book implements Node { id: ID! title: String! buyers: [Customer!]! @cacheControl(scope: PRIVATE) short: String @cacheControl(maxAge: 2) }
  type Customer implements Node @cacheControl(scope: PRIVATE) { id: ID! }
  type Query { book(id: ID!): Book  node(id: ID!): Node  customer: Customer  count: Int }
  type Mutation { buy: Book @cacheControl(maxAge: 0) }
`;
const DEFAULT_MAX_AGE = 60;
const BOOK = { __typename: "Book", id: "1", title: "Invisible Cities", buyers: [{ id: "c1" }], short: "IC" };
const rootValue = {
  book: ({ id }: { id: string }) => (id === "1" ? BOOK : null),
  node: ({ id }: { id: string }) => (id === "1" ? BOOK : { __typename: "Customer", id }),
  customer: () => ({ id: "c1" }),
  count: () => 1,
  buy: () => BOOK,
};
const schema = buildSchema(SDL);
Object.assign(schema.getType("Node")!, { resolveType: (value: { __typename: string }) => value.__typename });

async function apolloPolicy(query: string, variables: Record<string, unknown> = {}): Promise<CacheHint> {
  let policy: CacheHint = {};
  const capture: ApolloServerPlugin = {
    requestDidStart: async () => ({
      willSendResponse: async ({ overallCachePolicy }) => {
        policy = {
          ...(overallCachePolicy.maxAge === undefined ? {} : { maxAge: overallCachePolicy.maxAge }),
          ...(overallCachePolicy.scope ? { scope: overallCachePolicy.scope } : {}),
        };
      },
    }),
  };
  const server = new ApolloServer({
    schema,
    rootValue,
    plugins: [ApolloServerPluginCacheControl({ defaultMaxAge: DEFAULT_MAX_AGE }), capture],
  });
  await server.start();
  await server.executeOperation({ query, variables });
  await server.stop();
  return policy;
}

function staticPolicy(query: string, variables: Record<string, unknown> = {}): CacheHint {
  const document = parse(query);
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return operationCachePolicy(schema, getOperationAST(document)!, fragments, variables, DEFAULT_MAX_AGE);
}

// Every row names its variables: jest hands a test with a missing argument its `done` callback instead.
const SAME: [string, string, Record<string, unknown>][] = [
  ["a public field", `{ book(id: "1") { title } }`, {}],
  ["a private field", `{ book(id: "1") { title buyers { id } } }`, {}],
  ["a private type", `{ customer { id } }`, {}],
  ["a field's own max age", `{ book(id: "1") { short } }`, {}],
  ["a root scalar", `{ count }`, {}],
  ["__typename alone", `{ __typename }`, {}],
  ["a mutation", `mutation { buy { title } }`, {}],
  ["a private field skipped", `query ($me: Boolean!) { book(id: "1") { title buyers @include(if: $me) { id } } }`, { me: false }],
  ["a private field included", `query ($me: Boolean!) { book(id: "1") { title buyers @include(if: $me) { id } } }`, { me: true }],
  ["a named fragment on the returned type", `{ book(id: "1") { ...F } } fragment F on Book { short buyers { id } }`, {}],
  ["a fragment on an interface's type", `{ node(id: "1") { id ... on Book { title } } }`, {}],
  ["a variable's default", `query ($me: Boolean = true) { book(id: "1") { buyers @include(if: $me) { id } } }`, {}],
];

describe("the static cache policy", () => {
  it.each(SAME)("is Apollo's for %s", async (_name, query, variables) => {
    expect(staticPolicy(query, variables)).toEqual(await apolloPolicy(query, variables));
  });

  it("is stricter, never looser, where a private field was not resolved: beneath a null", async () => {
    const query = `{ book(id: "404") { title buyers { id } } }`;
    expect(await apolloPolicy(query)).toEqual({ maxAge: DEFAULT_MAX_AGE });
    expect(staticPolicy(query)).toEqual({ maxAge: DEFAULT_MAX_AGE, scope: "PRIVATE" });
  });

  it("refuses a schema that uses inheritMaxAge at start", async () => {
    const inheriting = buildSchema(
      SDL.replace("short: String @cacheControl(maxAge: 2)", "short: String @cacheControl(inheritMaxAge: true)"),
    );
    await expect(staticCachePolicyPlugin(DEFAULT_MAX_AGE).serverWillStart!({ schema: inheriting } as never)).rejects.toThrow(
      /inheritMaxAge/,
    );
  });
});

// Issue 39: Apollo's cache-control plugin gives every request's context a field hook that holds the whole request
// pipeline; under compiled execution Apollo keeps the context until a full collection, and the pipeline with it.
describe("the Cache-Control header plugin", () => {
  async function answer(query: string) {
    let context: object = {};
    const capture: ApolloServerPlugin = { requestDidStart: async ({ contextValue }) => void (context = contextValue) };
    const server = new ApolloServer({
      schema,
      rootValue,
      plugins: [cacheControlHeaderPlugin(DEFAULT_MAX_AGE), staticCachePolicyPlugin(DEFAULT_MAX_AGE), capture],
    });
    await server.start();
    const response = await server.executeOperation({ query });
    await server.stop();
    return { context, cacheControl: response.http.headers.get("cache-control") };
  }

  it.each([
    [`{ book(id: "1") { title } }`, `max-age=${DEFAULT_MAX_AGE}, public`],
    [`{ book(id: "1") { title buyers { id } } }`, `max-age=${DEFAULT_MAX_AGE}, private`],
    [`mutation { buy { title } }`, "no-store"],
  ])("answers %s with Cache-Control %s, as Apollo's plugin does, and gives the context no field hook", async (query, header) => {
    const { context, cacheControl } = await answer(query);
    expect(cacheControl).toBe(header);
    expect(Object.getOwnPropertySymbols(context)).toEqual([]);
  });
});
