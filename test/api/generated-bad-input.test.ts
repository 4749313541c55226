import fc from "fast-check";
import { serveOneBookLogged } from "../support/captured-log";
import { send, type HttpAnswer } from "../support/http";

// Requests nobody would write by hand, generated (fast-check, seeded) and sent to the running HTTP server:
// whatever they hold, the answer is never a 5xx, every error carries a code, and nothing is logged at error level.

const served = serveOneBookLogged();

/** Fixed, so a failure is reproduced by running the test again; fast-check prints the shrunk request. */
const SEED = 27;
/** Each run is one request to a server on loopback: enough variety for a busy 2-core machine. */
const RUNS = 300;

/** Operations this API serves, each with variables the generator fills with anything JSON can hold. */
const OPERATIONS = [
  `query ($id: ID!) { book(id: $id) { title databaseId } }`,
  `query ($id: ID!) { customer(id: $id) { databaseId booksPurchased(first: 2) { totalCount } } }`,
  `query ($id: ID!) { node(id: $id) { id } }`,
  `query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
  `query ($first: Int, $after: String, $last: Int, $before: String) { books(first: $first, after: $after, last: $last, before: $before) { totalCount edges { cursor } } }`,
  `query ($id: ID!, $first: Int, $after: String) { book(id: $id) { customersPurchased(first: $first, after: $after) { totalCount } } }`,
  `query ($id: ID!, $customerId: ID!) { book(id: $id) { purchasedBy(customerId: $customerId) } }`,
  `query ($id: ID!, $first: Int = 1) { book(id: $id) { alsoBought(first: $first) { sharedBuyers } } }`,
  `query ($top: Int) { salesStats(top: $top) { books } }`,
  `query ($x: Boolean = true, $y: Boolean) { book(id: "1") { title @include(if: $x) author @skip(if: $y) } }`,
  `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Book { title } ... on Customer { databaseId } } }`,
  `mutation ($input: RecordPurchaseInput!) { recordPurchase(input: $input) { storedIn } }`,
  `mutation ($input: AddBookInput!) { addBook(input: $input) { databaseId } }`,
  `subscription { books { totalCount } }`,
];

const VARIABLE_NAMES = ["id", "ids", "first", "after", "last", "before", "customerId", "top", "x", "y", "representations", "input"];

/** Values shaped like what an attacker tries: operators, ids that are not strings, typenames that name nothing. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom("$where", "1", "", "Qm9vazox", "Q3VzdG9tZXI6dXNlcjAw", "x".repeat(200), -1, 101, 2 ** 31, 1.5, null, true),
  fc.record({ $regex: fc.string(), length: fc.integer() }, { requiredKeys: [] }),
);

const representation: fc.Arbitrary<unknown> = fc.oneof(
  hostileValue,
  fc.record(
    {
      __typename: fc.oneof(fc.constantFrom("Book", "Customer", "Recommendation", "Query", "_Entity", "Node"), hostileValue),
      id: hostileValue,
      databaseId: hostileValue,
    },
    { requiredKeys: [] },
  ),
);

const variables: fc.Arbitrary<unknown> = fc.oneof(
  hostileValue,
  fc.dictionary(fc.constantFrom(...VARIABLE_NAMES), hostileValue, { maxKeys: 4 }),
  fc.record({ representations: fc.oneof(hostileValue, fc.array(representation, { maxLength: 4 })) }),
  fc.record({ input: fc.record({ bookId: hostileValue, customerId: hostileValue, purchaseId: hostileValue }, { requiredKeys: [] }) }),
);

/** A request body: mostly a known operation with generated variables, sometimes anything at all in any field. */
const body: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ query: fc.constantFrom(...OPERATIONS), variables }) },
  {
    weight: 1,
    arbitrary: fc.record({ query: fc.oneof(fc.string(), hostileValue), variables, operationName: hostileValue }, { requiredKeys: [] }),
  },
  { weight: 1, arbitrary: fc.record({ query: fc.constantFrom(...OPERATIONS), extensions: hostileValue }) },
  { weight: 1, arbitrary: hostileValue },
);

const request = fc.record({ body, byGet: fc.boolean() });

/** A GET carries each field of the body as a query parameter: strings as they are, anything else as JSON. */
function getUrl(body: Record<string, unknown>): string {
  const parameters = new URLSearchParams(
    Object.entries(body).map(([name, value]): [string, string] => [name, typeof value === "string" ? value : JSON.stringify(value)]),
  );
  return `${served.server.url}?${parameters}`;
}

function sendGenerated({ body: generated, byGet }: { body: unknown; byGet: boolean }): Promise<HttpAnswer> {
  if (byGet && typeof generated === "object" && generated !== null && !Array.isArray(generated)) {
    return send(getUrl(generated as Record<string, unknown>), undefined, { method: "GET", headers: {} });
  }
  return send(served.server.url, JSON.stringify(generated));
}

describe("generated malformed requests against the running server", () => {
  it(`answer ${RUNS} of them with no 5xx, a code on every error and nothing logged at error level`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        served.log.clear();
        const answer = await sendGenerated(generated);

        expect(answer.status).toBeLessThan(500);
        expect(answer.json).toBeDefined();
        for (const error of answer.json?.errors ?? []) expect(typeof error.extensions?.code).toBe("string");
        expect(served.log.errors()).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
