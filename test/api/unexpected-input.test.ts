import { serveOneBookLogged } from "../support/captured-log";
import { errorCodes, send, type HttpAnswer } from "../support/http";

// Input nobody expected (issue 27, item 5): each is refused before any resolver runs with a coded 400,
// never a 500, never logged at error level, and no id that is not a string reaches the database.

const served = serveOneBookLogged();
beforeEach(() => {
  served.log.clear();
  served.database.commands.reset();
});

const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on Book { title } ... on Customer { id: databaseId } }
}`;

function expectRefusedBeforeTheDatabase(answer: HttpAnswer, code: string): void {
  expect({ status: answer.status, codes: errorCodes(answer) }).toEqual({ status: 400, codes: [code] });
  expect(served.log.errors()).toEqual([]);
  expect(served.database.commands.names()).toEqual([]);
}

const malformedRepresentations: [string, unknown][] = [
  ["a string", "Book:1"],
  ["a number", 1],
  ["an array", [{ __typename: "Book", id: "1" }]],
  ["one without __typename", { id: "1" }],
  ["one with a null __typename", { __typename: null, id: "1" }],
  ["one with an unknown __typename", { __typename: "Author", id: "1" }],
  ["one with a __typename that is not an entity", { __typename: "Recommendation", id: "1" }],
  ["one with a __typename that is not a string", { __typename: ["Book"], id: "1" }],
  ["a Book with no key", { __typename: "Book", title: "1" }],
  ["a Book whose id is an array", { __typename: "Book", id: ["1"] }],
  ["a Book whose id is an object with a length", { __typename: "Book", id: { length: 1, toString: "1" } }],
  ["a Book whose id is a number", { __typename: "Book", id: 1 }],
  ["a Customer whose databaseId is an operator document", { __typename: "Customer", databaseId: { $regex: "^user0", length: 1 } }],
  ["a Customer whose id is an array", { __typename: "Customer", id: ["user00"] }],
];

describe("an _entities representation that is not a well-formed entity key", () => {
  it.each(malformedRepresentations)("is refused with BAD_USER_INPUT when it is %s", async (_case, representation) => {
    const answer = await send(served.server.url, {
      query: ENTITIES,
      variables: { representations: [{ __typename: "Book", id: "1" }, representation] },
    });

    expectRefusedBeforeTheDatabase(answer, "BAD_USER_INPUT");
    expect(answer.json?.errors?.[0]?.extensions).toMatchObject({ argumentName: "representations" });
  });

  it("is refused with BAD_USER_INPUT when written in the query itself", async () => {
    const answer = await send(served.server.url, {
      query: `{ _entities(representations: [{ __typename: "Customer", databaseId: { length: 1 } }]) { __typename } }`,
    });

    expectRefusedBeforeTheDatabase(answer, "BAD_USER_INPUT");
  });

  it("is refused under an alias too", async () => {
    const answer = await send(served.server.url, { query: `{ found: _entities(representations: ["Book:1"]) { __typename } }` });

    expectRefusedBeforeTheDatabase(answer, "BAD_USER_INPUT");
  });

  it("leaves well-formed representations answered, by either key", async () => {
    const representations = [
      { __typename: "Book", databaseId: "1" },
      { __typename: "Customer", databaseId: "user00" },
    ];
    const answer = await send(served.server.url, { query: ENTITIES, variables: { representations } });

    expect(answer.json).toEqual({ data: { _entities: [{ title: "Seeded 1" }, { id: "user00" }] } });
  });
});

describe("a null for a variable with a default", () => {
  const INCLUDE = `query ($x: Boolean = true) { book(id: "1") { title @include(if: $x) } }`;

  it("used where null is not allowed (@include's if) is refused with BAD_USER_INPUT, not a 500", async () => {
    const answer = await send(served.server.url, { query: INCLUDE, variables: { x: null } });

    expectRefusedBeforeTheDatabase(answer, "BAD_USER_INPUT");
  });

  it("left out takes its default", async () => {
    const answer = await send(served.server.url, { query: INCLUDE, variables: {} });

    expect(answer.json).toEqual({ data: { book: { title: "Seeded 1" } } });
  });

  it("used where null is allowed is null, as GraphQL's spec says, not the default", async () => {
    const answer = await send(served.server.url, {
      query: `query ($first: Int = 1) { book(id: "1") { alsoBought(first: $first) { sharedBuyers } } }`,
      variables: { first: null },
    });

    // alsoBought's own default (10) applies to an explicit null; the variable's default (1) would not have been checked.
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { book: { alsoBought: [] } } });
  });
});

describe("an operation HTTP does not serve", () => {
  it("a subscription over HTTP is refused with GRAPHQL_VALIDATION_FAILED, pointing to the WebSocket", async () => {
    const answer = await send(served.server.url, { query: `subscription { bestsellers { title } }` });

    expectRefusedBeforeTheDatabase(answer, "GRAPHQL_VALIDATION_FAILED");
    expect(answer.json?.errors?.[0]?.message).toMatch(/subscription is served over a WebSocket at this same URL/);
  });
});
