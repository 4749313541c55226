import { getOperationAST, parse, type GraphQLError } from "graphql";
import type { Principal } from "../../src/auth/principal";
import { REFUSED_DOCUMENTS } from "../../src/graphql/limits/operation";
import { chargeOf, createOperationChecks, parsedDocuments, type Checked, type Refused } from "../../src/graphql/execution/pipeline";
import { schema } from "../../src/graphql/schema/schema";

const anonymous: Principal = { kind: "anonymous" };
const reader: Principal = { kind: "token", name: "reader", scopes: new Set(["purchases:read"]), trustedDocumentsOnly: false };

/** A selection over the cost limit: 100 buyers' histories of 100 books each. */
const HEAVY = `book(id: "1") { customersPurchased(first: 100) { edges { node { booksPurchased(first: 100) { totalCount } } } } }`;
/** A representation naming no entity type: the input checks refuse it. */
const MALFORMED = `_entities(representations: [{ __typename: "Nope" }]) { __typename }`;
/** A field only a token with purchases:read may read. */
const SCOPED = `other: book(id: "2") { customersPurchased(first: 1) { totalCount } }`;

function check(query: string, principal: Principal, variables: Record<string, unknown> = {}): Checked | Refused {
  const document = parse(query);
  const operation = getOperationAST(document)!;
  return createOperationChecks().check({ schema, document, operation, queryKey: query, variables, principal });
}

function codeOf(outcome: Checked | Refused): unknown {
  return "refusal" in outcome ? outcome.refusal.extensions["code"] : "checked";
}

describe("the operation pipeline's checks", () => {
  it("refuses the input first, then the weight, then the scopes, whatever else the operation holds", () => {
    expect(codeOf(check(`{ ${MALFORMED} ${HEAVY} ${SCOPED} }`, anonymous))).toBe("BAD_USER_INPUT");
    expect(codeOf(check(`{ ${HEAVY} ${SCOPED} }`, anonymous))).toBe("QUERY_TOO_COMPLEX");
    expect(codeOf(check(`{ ${SCOPED} }`, anonymous))).toBe("UNAUTHENTICATED");
    expect(codeOf(check(`{ ${SCOPED} }`, reader))).toBe("checked");
  });

  it("refuses variables that do not coerce before any check, and hands on the coerced values of those that do", () => {
    const query = `query ($ids: [ID!]!, $top: Int = 2) { nodes(ids: $ids) { id } books(first: $top) { totalCount } }`;
    const refused = check(query, anonymous, { ids: [{ $gt: "" }] });
    expect(codeOf(refused)).toBe("BAD_USER_INPUT");
    expect("variables" in refused).toBe(false);
    // A single id for a list of one, and the default filled in: what the checks weighed is what runs.
    expect(check(query, anonymous, { ids: "1" })).toEqual({ variables: { ids: ["1"], top: 2 }, weight: expect.any(Object) });
  });

  it("answers the same operation, sent again, with the same outcome from its memo", () => {
    const checks = createOperationChecks();
    const query = `{ ${SCOPED} }`;
    const document = parse(query);
    const operation = getOperationAST(document)!;
    const request = { schema, document, operation, queryKey: query, variables: {} };
    // The analysis is kept; the caller is checked each time.
    expect(codeOf(checks.check({ ...request, principal: reader }))).toBe("checked");
    expect(codeOf(checks.check({ ...request, principal: anonymous }))).toBe("UNAUTHENTICATED");
  });
});

describe("the WebSocket's parsing and validation", () => {
  const documentOf = parsedDocuments(schema, "websocket");
  const codes = (query: string) => {
    const parsed = documentOf(query);
    return "errors" in parsed ? parsed.errors.map((error: GraphQLError) => error.extensions["code"]) : "valid";
  };

  it("refuses what HTTP serves, unparsable text and depth past the limit, each with its code", () => {
    expect(codes(`subscription { bookSales(ids: ["1"]) { title } }`)).toBe("valid");
    expect(codes(`query { book(id: "1") { title } }`)).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
    expect(codes(`subscription {`)).toEqual(["GRAPHQL_PARSE_FAILED"]);
    const deep = `subscription { bookSales(ids: ["1"]) { ${"customersPurchased { edges { node { booksPurchased { edges { node { ".repeat(2)} title ${"} } } } } } ".repeat(2)} } }`;
    expect(codes(deep)).toEqual(["QUERY_TOO_DEEP"]);
  });
});

describe("what a client's budget pays", () => {
  const weight = { cost: 10, documents: 500 };
  const refusal = {} as GraphQLError;

  it("over HTTP: an operation's documents, refused or not, and a refusal only for one over the limits", () => {
    expect(chargeOf("http", { variables: {}, weight })).toEqual({ documents: 500, overLimits: false });
    expect(chargeOf("http", { refusal, variables: {}, weight, overLimits: false })).toEqual({ documents: 500, overLimits: false });
    expect(chargeOf("http", { refusal, variables: {}, weight, overLimits: true })).toEqual({
      documents: REFUSED_DOCUMENTS,
      overLimits: true,
    });
    // Variables that did not coerce were never weighed.
    expect(chargeOf("http", { refusal, overLimits: false })).toBeUndefined();
  });

  it("over the WebSocket: a refusal for every refused subscription, whatever refused it", () => {
    expect(chargeOf("websocket", { variables: {}, weight })).toEqual({ documents: 500, overLimits: false });
    expect(chargeOf("websocket", { refusal, overLimits: false })).toEqual({ documents: REFUSED_DOCUMENTS, overLimits: true });
    expect(chargeOf("websocket", { refusal, variables: {}, weight, overLimits: false })).toEqual({
      documents: REFUSED_DOCUMENTS,
      overLimits: true,
    });
  });
});
