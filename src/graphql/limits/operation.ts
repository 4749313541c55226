import { ApolloArmor } from "@escape.tech/graphql-armor";
import type { GraphQLArmorCallbackConfiguration } from "@escape.tech/graphql-armor-types";
import { GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { getComplexity, type ComplexityEstimator } from "graphql-query-complexity";
import { statusOf, type ErrorCode } from "../../error-codes";
import { fieldEstimators } from "./field-costs";
import { LIGHT_DOCUMENTS } from "./heavy-lane";
import type { CoercedVariables } from "../execution/variables";

/**
 * What one request may ask for, checked before any resolver runs. The storefront's heaviest
 * operation (ListBooks with every `first` at its maximum of 100) has depth 7, no alias or
 * directive, about 60 tokens and a cost of about 32,400; docs/api/limits.md explains each value.
 */
export const REQUEST_LIMITS = {
  maxDepth: 10,
  maxAliases: 15,
  maxDirectives: 10,
  maxTokens: 1_000,
  maxCost: 100_000,
  /** Documents the database may examine for one request, as field-costs.ts weighs them. */
  maxDocuments: 1_000,
  /** The body limit as requests are told it. */
  maxBodySize: "100kb",
  /** The same limit as Fastify's `bodyLimit` takes it, in bytes. */
  maxBodyBytes: 100 * 1024,
} as const;

/** A refusal for breaking a request limit; `extensions.code` says which one. */
export class RequestLimitError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message, { extensions: { code, http: { status: statusOf(code), headers: new Map(Object.entries(headers)) } } });
  }
}

/** For ApolloServer's `parseOptions`: the parser stops at the token limit, before building a large document. */
export const parseOptions = { maxTokens: REQUEST_LIMITS.maxTokens };

/**
 * Armor reports its own refusals as BAD_USER_INPUT, worded as syntax errors ("Syntax Error: Query depth
 * limit of 8 exceeded"); this reports each under its own code, saying what was refused and how to fit.
 */
function refuseAs(code: ErrorCode, fix: string): GraphQLArmorCallbackConfiguration {
  return {
    propagateOnRejection: false,
    onReject: [
      (context, error) => context?.reportError(new RequestLimitError(code, `${error.message.replace(/^Syntax Error: /, "")} ${fix}`)),
    ],
  };
}

/**
 * graphql-armor's limits on depth, aliases and directives, as validation rules (pipeline.ts `validationRules` adds
 * them for every transport). Three of its protections stay off: its cost limit cannot weigh a field by its `first`
 * argument (see `operationWeight`), its token limit throws from Apollo Server 5's parsingDidStart hook, which Apollo
 * answers with a 500 (graphql-js's own `maxTokens` parse option, `parseOptions`, refuses the same documents with
 * GRAPHQL_PARSE_FAILED and a 400), and its masking of "Did you mean ...?" is an Apollo plugin the WebSocket never
 * meets: the one error formatter masks them in production instead (errors.ts `maskSuggestions`).
 */
export function armorProtection() {
  return new ApolloArmor({
    // Levels of fields, as docs/api/limits.md promises: without flattening, every fragment spread counted as two
    // more levels, so a Relay-composed query 7 fields deep was refused as 11.
    maxDepth: {
      n: REQUEST_LIMITS.maxDepth,
      flattenFragments: true,
      ...refuseAs("QUERY_TOO_DEEP", "Select fewer nested levels, or fetch the deeper part in a second query."),
    },
    maxAliases: { n: REQUEST_LIMITS.maxAliases, ...refuseAs("TOO_MANY_ALIASES", "Send fewer aliased fields, or split the query.") },
    maxDirectives: { n: REQUEST_LIMITS.maxDirectives, ...refuseAs("TOO_MANY_DIRECTIVES", "Use fewer directives in one query.") },
    maxTokens: { enabled: false },
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: false },
  }).protect();
}

export { COMMAND_COST } from "./field-costs";

/**
 * What running an operation weighs: its cost, from the schema's `@cost` and `@listSize`, and the documents it may make
 * the database examine (see field-costs.ts).
 */
export interface OperationWeight {
  cost: number;
  documents: number;
}

/** What running `operation` of `document` with `variables` (coerced) weighs, or undefined when an argument is left invalid. */
export function operationWeight(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: CoercedVariables,
): OperationWeight | undefined {
  const estimators = fieldEstimators(schema);
  const weigh = (estimator: ComplexityEstimator) =>
    getComplexity({ schema, query: document, operationName: operation.name?.value, variables, estimators: [estimator] });
  try {
    return { cost: weigh(estimators.cost), documents: weigh(estimators.documents) };
  } catch (error) {
    // An argument its variables leave invalid (`@include(if: null)`): the input checks (input-checks.ts) refuse it with BAD_USER_INPUT.
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
}

/** The cost of running `operation` of `document` with `variables` (coerced), or undefined when an argument is left invalid. */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: CoercedVariables,
): number | undefined {
  return operationWeight(schema, document, operation, variables)?.cost;
}

/**
 * The refusal of an operation that weighs `weight` (undefined: it could not be weighed, which other checks
 * refuse), or undefined when it fits: over `maxCost`, or over `maxDocuments`. HTTP and WebSocket operations alike.
 */
export function weightRefusal(
  weight: OperationWeight | undefined,
  { maxCost = REQUEST_LIMITS.maxCost, maxDocuments = REQUEST_LIMITS.maxDocuments }: { maxCost?: number; maxDocuments?: number } = {},
): RequestLimitError | undefined {
  if (weight === undefined) return undefined;
  const { cost, documents } = weight;
  if (cost > maxCost) {
    return new RequestLimitError(
      "QUERY_TOO_COMPLEX",
      `The query costs ${cost}, over the limit of ${maxCost}; ask for fewer items with smaller \`first\` values.`,
    );
  }
  if (documents > maxDocuments) {
    return new RequestLimitError(
      "QUERY_TOO_COMPLEX",
      `The query may make the database examine ${documents} documents, over the limit of ${maxDocuments}; ask for fewer items, windows or representations, or split the query.`,
    );
  }
  return undefined;
}

/**
 * What a client's budget pays for an operation refused as over the limits: as much as the lightest heavy request, which
 * is what weighing and refusing it costs the server (2 to 3 ms of CPU for 400 representations, where an answered
 * request of 1,000 books costs 50), and what a client's one mistake should cost it, not its whole budget.
 */
export const REFUSED_DOCUMENTS = LIGHT_DOCUMENTS + 1;
