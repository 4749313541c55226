import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginInlineTraceDisabled } from "@apollo/server/plugin/disabled";
import { startStandaloneServer } from "@apollo/server/standalone";
import { composeServices } from "@apollo/composition";
import { ApolloGateway } from "@apollo/gateway";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { buildSchema, parse } from "graphql";
import pino from "pino";
import { readFieldCosts } from "../../src/graphql/limits/field-costs";
import { schema } from "../../src/graphql/schema/schema";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { send, startTestHttpServer } from "../support/http";

/** A second subgraph of the store, as another team would run it: it owns each book's price and a list of featured books, keyed by the id it stores. */
const PRICING_SDL = `#graphql
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
  type Book @key(fields: "databaseId") {
    databaseId: ID!
    "The book's price in euros, from this subgraph alone."
    price: Float!
  }
  type Query {
    "The books the store features this week, in its order."
    featuredBooks: [Book!]!
  }
`;
const FEATURED = Array.from({ length: 50 }, (_, index) => String(50 - index));
const priceOf = (id: string) => 5 + Number(id) / 100;

const silent = pino({ level: "silent" });

let database: TestDatabase;
let catalog: RunningServer;
let pricing: { server: ApolloServer; url: string };
let router: ApolloServer;
let supergraphSdl: string;
beforeAll(async () => {
  database = await openTestDatabase();
  for (let id = 1; id <= 50; id += 1) await seedBook(database.db, String(id), customers(2));
  catalog = await startTestHttpServer(database.db);
  pricing = await startPricing();
  const catalogSdl = await subgraphSdl(catalog.url);
  const composed = composeServices([
    { name: "catalog", typeDefs: parse(catalogSdl), url: catalog.url },
    { name: "pricing", typeDefs: parse(PRICING_SDL), url: pricing.url },
  ]);
  if (composed.errors) throw new Error(`composition failed: ${composed.errors.map((error) => error.message).join("; ")}`);
  supergraphSdl = composed.supergraphSdl;
  router = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl, logger: silent }), logger: silent });
  await router.start();
});
afterAll(async () => {
  await router.stop();
  await pricing.server.stop();
  await catalog.stop();
  await database.close();
});

async function startPricing() {
  const resolvers = {
    Book: { __resolveReference: ({ databaseId }: { databaseId: string }) => ({ databaseId, price: priceOf(databaseId) }) },
    Query: { featuredBooks: () => FEATURED.map((databaseId) => ({ databaseId, price: priceOf(databaseId) })) },
  };
  const server = new ApolloServer({
    schema: buildSubgraphSchema([{ typeDefs: parse(PRICING_SDL), resolvers }]),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
    logger: silent,
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: "127.0.0.1" } });
  return { server, url };
}

/** What a router's composition reads from a subgraph: its `_service { sdl }`. */
async function subgraphSdl(url: string): Promise<string> {
  const answer = await send(url, { query: "{ _service { sdl } }" });
  return (answer.json?.data as { _service: { sdl: string } })._service.sdl;
}

async function throughRouter(query: string) {
  const response = await router.executeOperation({ query });
  if (response.body.kind !== "single") throw new Error("the router answered incrementally");
  return response.body.singleResult;
}

describe("the catalog in a supergraph with a pricing subgraph", () => {
  it("answers a catalog page with titles from this API and prices from the other, reading the books once", async () => {
    database.commands.reset();

    const result = await throughRouter("{ books(first: 3) { edges { node { databaseId title price } } } }");

    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      books: { edges: ["1", "2", "3"].map((id) => ({ node: { databaseId: id, title: `Seeded ${id}`, price: priceOf(id) } })) },
    });
    expect(database.commands.names()).toEqual(["find"]);
  });

  it("resolves the other subgraph's 50 featured books through _entities with one database command", async () => {
    database.commands.reset();

    const result = await throughRouter("{ featuredBooks { databaseId title price } }");

    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ featuredBooks: FEATURED.map((id) => ({ databaseId: id, title: `Seeded ${id}`, price: priceOf(id) })) });
    expect(database.commands.names()).toEqual(["find"]);
  });

  it("hands a router's demand control the catalog's @cost and @listSize as the API weighs them, under the cost specification's link", () => {
    // The link names `@cost` by itself (a feature's directive of its own name needs no import), and imports `@listSize`.
    expect(supergraphSdl).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/cost\/v0\.1", import: \["@listSize"\]\)/);
    const composed = readFieldCosts(buildSchema(supergraphSdl, { assumeValidSDL: true }));
    const catalog = readFieldCosts(schema);
    // `_entities` is the router's own: a supergraph has none.
    expect(composed).toEqual(new Map([...catalog].filter(([coordinate]) => !coordinate.startsWith("Query._"))));
    expect(composed.get("Book.alsoBought")?.weight).toBeGreaterThan(0);
  });
});
