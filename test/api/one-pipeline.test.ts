import { createHash } from "node:crypto";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { send, startTestHttpServer } from "../support/http";
import { subscribe, subscriptionClient } from "../support/subscriptions";
import { bearer, configuredTokens, tokenSpec, type TokenSpec } from "../support/tokens";

// HTTP and the WebSocket take one operation pipeline (src/graphql/execution/pipeline.ts): the same operation, refused or run,
// gets the same answer on both, its code and message alike. HTTP serves queries and the WebSocket subscriptions, so
// each case is a query and a subscription that differ only in their root field, aliased alike.

const reader = tokenSpec("pipeline-reader", ["purchases:read"]);
const storefront = { ...tokenSpec("pipeline-storefront", ["purchases:read"]), trustedDocuments: true };

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const byHash = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });

/** The same selection of book 1, as a query (HTTP) and as a subscription (the WebSocket). */
function book(selection: string): Operations {
  return {
    http: `query { sales: book(id: "1") { ${selection} } }`,
    webSocket: `subscription { sales: bookSales(ids: ["1"]) { ${selection} } }`,
  };
}

/** The same selection of books named by `$ids`: `nodes` weighs its items as `bookSales` does. */
function books(selection: string): Operations {
  return {
    http: `query ($ids: [ID!]!) { sales: nodes(ids: $ids) { ... on Book { ${selection} } } }`,
    webSocket: `subscription ($ids: [ID!]!) { sales: bookSales(ids: $ids) { ... on Book { ${selection} } } }`,
  };
}

interface Operations {
  http: string;
  webSocket: string;
}

const ACCEPTED = book("databaseId purchaseCount");
/** Trusted documents: the only ones the storefront's token may run, named by hash. */
const MANIFEST = new Map([ACCEPTED.http, ACCEPTED.webSocket].map((text) => [sha256(text), text]));

let database: TestDatabase;
let development: RunningServer;
let production: RunningServer;
beforeAll(async () => {
  // A replica set: subscriptions need change streams.
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "1", customers(3));
  const options = {
    apiTokens: configuredTokens(reader, storefront),
    trustedDocuments: MANIFEST,
    // Room for every refusal of the cases: a refused subscription pays one of its client's refusals.
    clientBudget: { clientBudgetDocuments: 1_000, clientBudgetTokenDocuments: 100_000, clientBudgetSeconds: 60 },
  };
  development = await startTestHttpServer(database.db, options);
  production = await startTestHttpServer(database.db, { ...options, production: true });
});
afterAll(async () => {
  await Promise.all([development?.stop(), production?.stop()]);
  await database.close();
});

/** What a client learns of an operation: its data, or each error's code and message. */
type Outcome = { data: unknown } | { errors: [unknown, string][] };

function outcomeOf(answer: { data?: unknown; errors?: readonly { message: string; extensions?: { code?: unknown } }[] }): Outcome {
  return answer.errors ? { errors: answer.errors.map((error) => [error.extensions?.code, error.message]) } : { data: answer.data };
}

/** The operation over HTTP, as a JSON POST: its text, or with `hashOnly` just its hash. */
async function overHttp(
  server: RunningServer,
  query: string,
  variables: Record<string, unknown>,
  token: TokenSpec | undefined,
  hashOnly: boolean,
): Promise<Outcome> {
  const body = hashOnly ? { variables, extensions: byHash(query) } : { query, variables };
  const answer = await send(server.url, body, {
    headers: { "content-type": "application/json", ...(token ? { authorization: bearer(token) } : {}) },
  });
  return outcomeOf(answer.json ?? {});
}

/** The subscription's first value or the errors it ended with, as graphql-ws delivers them: its text, or with `hashOnly` just its hash. */
async function overWebSocket(
  server: RunningServer,
  query: string,
  variables: Record<string, unknown>,
  token: TokenSpec | undefined,
  hashOnly: boolean,
): Promise<Outcome> {
  const client = subscriptionClient(server.url, token);
  const subscription = hashOnly ? subscribe(client, "", variables, byHash(query)) : subscribe(client, query, variables);
  const first = await Promise.race([subscription.next(), subscription.ended]);
  await client.dispose();
  if (Array.isArray(first)) return outcomeOf({ errors: first as { message: string; extensions?: { code?: unknown } }[] });
  return outcomeOf(first as { data?: unknown });
}

interface Case {
  operations: Operations;
  variables?: Record<string, unknown>;
  token?: TokenSpec | undefined;
  /** Whether it is sent by hash alone, as a client of trusted documents sends it. */
  hashOnly?: boolean;
  inProduction?: boolean;
  /** What both transports answer. */
  expected: Outcome | { errors: [string, string | RegExp][] };
}

const cases: [string, Case][] = [
  ["an accepted operation", { operations: ACCEPTED, token: reader, expected: { data: { sales: { databaseId: "1", purchaseCount: 3 } } } }],
  [
    "a trusted document named by hash",
    { operations: ACCEPTED, token: storefront, hashOnly: true, expected: { data: { sales: { databaseId: "1", purchaseCount: 3 } } } },
  ],
  [
    "unparsable text",
    {
      operations: { http: "subscription {", webSocket: "subscription {" },
      token: reader,
      expected: { errors: [["GRAPHQL_PARSE_FAILED", "Syntax Error: Expected Name, found <EOF>."]] },
    },
  ],
  [
    "a field the schema lacks, with its suggestion in development",
    {
      operations: book("titl"),
      token: reader,
      expected: { errors: [["GRAPHQL_VALIDATION_FAILED", 'Cannot query field "titl" on type "Book". Did you mean "title"?']] },
    },
  ],
  [
    "a field the schema lacks, its suggestion masked in production",
    {
      operations: book("titl"),
      token: reader,
      inProduction: true,
      expected: { errors: [["GRAPHQL_VALIDATION_FAILED", 'Cannot query field "titl" on type "Book". [Suggestion hidden]']] },
    },
  ],
  [
    "a variable that does not coerce",
    {
      operations: books("databaseId"),
      variables: { ids: [{ $gt: "" }] },
      token: reader,
      expected: {
        errors: [["BAD_USER_INPUT", /^Variable "\$ids" got invalid value \{ \$gt: "" \} at "ids\[0\]"; ID cannot represent value/]],
      },
    },
  ],
  [
    "an operation over the cost limit",
    {
      operations: books("customersPurchased(first: 100) { edges { node { booksPurchased(first: 100) { totalCount } } } }"),
      variables: { ids: ["1"] },
      token: reader,
      expected: { errors: [["QUERY_TOO_COMPLEX", /^The query costs \d+, over the limit of 100000;/]] },
    },
  ],
  [
    // Weighed before its scopes, on both: HTTP's plugins, racing in one Promise.all, once answered UNAUTHENTICATED here.
    "an operation over the cost limit that also needs a scope the caller lacks",
    {
      operations: books("customersPurchased(first: 100) { edges { node { booksPurchased(first: 100) { totalCount } } } }"),
      variables: { ids: ["1"] },
      token: undefined,
      expected: { errors: [["QUERY_TOO_COMPLEX", /^The query costs \d+, over the limit of 100000;/]] },
    },
  ],
  [
    "a field whose scope the caller lacks",
    {
      operations: book("customersPurchased(first: 1) { totalCount }"),
      token: undefined,
      expected: { errors: [["UNAUTHENTICATED", /purchases:read/]] },
    },
  ],
  [
    "a document of its own from a token held to trusted documents",
    {
      operations: ACCEPTED,
      token: storefront,
      expected: {
        errors: [
          ["DOCUMENT_NOT_TRUSTED", /^The token "pipeline-storefront" may run only its trusted documents.*this request sent a document$/],
        ],
      },
    },
  ],
];

describe("the same operation over HTTP and over the WebSocket", () => {
  it.each(cases)(
    "gets the same answer: %s",
    async (_case, { operations, variables = {}, token, hashOnly = false, inProduction, expected }) => {
      const server = inProduction ? production : development;
      const http = await overHttp(server, operations.http, variables, token, hashOnly);
      const webSocket = await overWebSocket(server, operations.webSocket, variables, token, hashOnly);
      const matching =
        "errors" in expected
          ? {
              errors: expected.errors.map(([code, message]) => [
                code,
                typeof message === "string" ? message : expect.stringMatching(message),
              ]),
            }
          : expected;
      expect(http).toEqual(matching);
      expect(webSocket).toEqual(http);
    },
  );
});
