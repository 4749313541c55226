import { buildSchema } from "graphql";
import { COMMAND_COST, readFieldCosts } from "../../src/graphql/limits/field-costs";
import { schema } from "../../src/graphql/schema/schema";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, send, startTestHttpServer } from "../support/http";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

const BOOKS = 50;
const ENTITIES = `query Entities($representations: [_Any!]!) { _entities(representations: $representations) { ... on Book { id: databaseId title } } }`;
const reader = tokenSpec("router", ["purchases:read"]);

let database: TestDatabase;
let server: RunningServer;
let guarded: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  for (let id = 1; id <= BOOKS; id += 1) await seedBook(database.db, String(id), customers(id % 3));
  server = await startTestHttpServer(database.db);
  guarded = await startTestHttpServer(database.db, { apiTokens: configuredTokens(reader) });
});
afterAll(async () => {
  await Promise.all([server.stop(), guarded.stop()]);
  await database.close();
});

const bookRepresentations = (ids: string[]) => ids.map((id) => ({ __typename: "Book", id }));

describe("the API as a Federation 2 subgraph", () => {
  it("publishes its SDL with Book and Customer as entities keyed by id", async () => {
    const answer = await send(server.url, { query: "{ _service { sdl } }" });

    const { sdl } = (answer.json?.data as { _service: { sdl: string } })._service;
    expect(sdl).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.9", import: \["@key", "@cost", "@listSize"\]\)/);
    expect(sdl).toMatch(/extend type Book\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/extend type Customer\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type Customer implements Node\s+@cacheControl\(scope: PRIVATE\)/);
  });

  it("publishes in its SDL every field's @cost and @listSize, the figures the API weighs operations by", async () => {
    const answer = await send(server.url, { query: "{ _service { sdl } }" });

    const { sdl } = (answer.json?.data as { _service: { sdl: string } })._service;
    const published = readFieldCosts(buildSchema(sdl, { assumeValidSDL: true }));
    expect(published).toEqual(readFieldCosts(schema));
    expect(published.get("Query.books")).toEqual({
      weight: 2 * COMMAND_COST,
      listSize: { assumedSize: 20, slicingArguments: ["first", "last"] },
    });
  });

  it(`resolves ${BOOKS} Book representations with one database command, in order, null for a book it does not hold`, async () => {
    const ids = [...Array.from({ length: BOOKS }, (_, index) => String(BOOKS - index)), "no-such-book"];
    database.commands.reset();

    const answer = await send(server.url, { query: ENTITIES, variables: { representations: bookRepresentations(ids) } });

    const entities = (answer.json?.data as { _entities: ({ id: string; title: string } | null)[] })._entities;
    expect(entities.map((entity) => entity?.id ?? null)).toEqual([...ids.slice(0, BOOKS), null]);
    expect(entities[0]).toEqual({ id: String(BOOKS), title: `Seeded ${BOOKS}` });
    expect(database.commands.names()).toEqual(["find"]);
  });

  it("guards what a Customer representation reveals by scope, as customer(id:) does", async () => {
    const query = `query Buyer($representations: [_Any!]!) { _entities(representations: $representations) { ... on Customer { id: databaseId booksPurchased(first: 2) { edges { node { id: databaseId } } } } } }`;
    const variables = { representations: [{ __typename: "Customer", id: "user00" }] };

    const refused = await send(guarded.url, { query, variables });
    const allowed = await send(
      guarded.url,
      { query, variables },
      { headers: { "content-type": "application/json", authorization: bearer(reader) } },
    );

    expect([refused.status, errorCodes(refused)]).toEqual([401, ["UNAUTHENTICATED"]]);
    expect(allowed.json?.errors).toBeUndefined();
    expect(allowed.json?.data).toMatchObject({
      _entities: [{ id: "user00", booksPurchased: { edges: [{ node: { id: "1" } }, { node: { id: "2" } }] } }],
    });
  });

  it("weighs _entities by its representations, so a router cannot fetch past the cost limit", async () => {
    const ids = Array.from({ length: 1_000 }, (_, index) => String(index));
    const query = `query Heavy($representations: [_Any!]!) { _entities(representations: $representations) { ... on Book { customersPurchased(first: 100) { edges { node { id: databaseId } } } } } }`;
    database.commands.reset();

    const answer = await send(
      guarded.url,
      { query, variables: { representations: bookRepresentations(ids) } },
      {
        headers: { "content-type": "application/json", authorization: bearer(reader) },
      },
    );

    expect([answer.status, errorCodes(answer)]).toEqual([400, ["QUERY_TOO_COMPLEX"]]);
    expect(database.commands.names()).toEqual([]);
  });

  it("refuses a representation that names no id with BAD_USER_INPUT", async () => {
    const answer = await send(server.url, { query: ENTITIES, variables: { representations: [{ __typename: "Book", id: "" }] } });

    expect(errorCodes(answer)).toEqual(["BAD_USER_INPUT"]);
  });
});
