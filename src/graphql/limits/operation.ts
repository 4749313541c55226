import type { ApolloServerPlugin } from "@apollo/server";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import type { GraphQLArmorCallbackConfiguration } from "@escape.tech/graphql-armor-types";
import { GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { getComplexity, type ComplexityEstimator } from "graphql-query-complexity";
import { statusOf, type ErrorCode } from "../../error-codes";
import { afterPolling } from "../../sales/turns";
import { memoizeByOperation } from "../operation-memo";
import { fieldEstimators } from "./field-costs";
import { createHeavyLane, LIGHT_DOCUMENTS, type LaneRelease } from "./heavy-lane";
import type { CoercedVariables } from "../variables";

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
 * graphql-armor's limits on depth, aliases and directives, and, in production, its masking of
 * "Did you mean ...?" in validation errors, which would otherwise reveal the schema field by field
 * even with introspection off. Two of its protections stay off: its cost limit cannot weigh a field
 * by its `first` argument (see `costLimitPlugin`), and its token limit throws from Apollo Server 5's
 * parsingDidStart hook, which Apollo answers with a 500; graphql-js's own `maxTokens` parse option
 * (`parseOptions`) refuses the same documents with GRAPHQL_PARSE_FAILED and a 400.
 */
export function armorProtection(production: boolean) {
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
    blockFieldSuggestion: { enabled: production },
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
    // An argument its variables leave invalid (`@include(if: null)`): inputCheckPlugin refuses it with BAD_USER_INPUT.
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

/** A request outside the heavy lane leaves nothing: one function for all of them, not one made per request. */
const NOT_IN_LANE: LaneRelease = () => {};

/** Pays a request's documents (and, refused as over the limits, a refusal) from its client's budget (client-budget.ts); the refusal when the budget cannot. */
export type ChargeHook<TContext> = (context: TContext, documents: number, overLimits: boolean) => Promise<RequestLimitError | undefined>;

/** What `costLimitPlugin` refuses and how long a heavy request may wait for its turn. */
export interface CostLimits<TContext = object> {
  maxCost?: number;
  maxDocuments?: number;
  /** How long a heavy request waits for the heavy lane before it is refused: a share of the request's time limit. */
  laneWaitMs: number;
  /** The client's budget; absent, nothing is charged. */
  charge?: ChargeHook<TContext>;
  /** The client a request is counted against, whose turns in the heavy lane go round with the others'; absent, requests go in arrival order. */
  clientOf?: (context: TContext) => string | undefined;
}

/** What the request is told of its own weight once it is let through: its pool share bounds its connection time by it. */
export type WeighedHook<TContext> = (context: TContext, weight: OperationWeight) => void;

/**
 * Refuses an operation whose cost, weighed with its variables, is over `maxCost`, or whose documents are over
 * `maxDocuments`, before any resolver runs; weighed once per query text, operation and variable values. A heavy
 * one then runs in the server's heavy lane (see heavy-lane.ts), which it leaves once answered; one that cannot
 * get in within `laneWaitMs` is refused with REQUEST_TIMEOUT, having read nothing. An operation let through is
 * `weighed` first: the server bounds the connection time its pool share may hold by its documents (pool-share.ts).
 * Before either, `charge` pays its documents from its client's budget, or refuses it RATE_LIMITED: an operation
 * refused as over the limits pays REFUSED_DOCUMENTS and one of the client's few refusals, as its weighing cost the
 * server, so that a client sending it again and again is soon in debt and refused before its body is read.
 */
export function costLimitPlugin<TContext extends object>(
  { maxCost = REQUEST_LIMITS.maxCost, maxDocuments = REQUEST_LIMITS.maxDocuments, laneWaitMs, charge, clientOf }: CostLimits<TContext>,
  weighed: WeighedHook<TContext> = () => {},
): ApolloServerPlugin<TContext> {
  const weightOf = memoizeByOperation(({ schema, document, request }, operation) =>
    operationWeight(schema, document, operation, request.variables ?? {}),
  );
  const lane = createHeavyLane(laneWaitMs);
  return {
    async requestDidStart() {
      let leave: LaneRelease = NOT_IN_LANE;
      let heavy = false;
      return {
        async didResolveOperation(requestContext) {
          const { operation } = requestContext;
          if (!operation) return;
          const weight = weightOf(requestContext, operation);
          if (weight === undefined) return;
          const refused = weightRefusal(weight, { maxCost, maxDocuments });
          const unpaid = await charge?.(requestContext.contextValue, refused ? REFUSED_DOCUMENTS : weight.documents, refused !== undefined);
          if (unpaid) throw unpaid;
          if (refused) throw refused;
          weighed(requestContext.contextValue, weight);
          const release = await lane.enter(weight.documents, clientOf?.(requestContext.contextValue));
          if (release === undefined) {
            throw new RequestLimitError(
              "REQUEST_TIMEOUT",
              `The server is busy with other large queries and this one waited ${laneWaitMs} ms for its turn; try again, or ask for less.`,
            );
          }
          leave = release;
          // A heavy request runs on a turn of the event loop of its own: its parsing, checks and weighing were one
          // synchronous stretch, and its execution's first (resolving 1,000 representations) is another; other
          // requests are read in between.
          heavy = weight.documents > LIGHT_DOCUMENTS;
          if (heavy) await afterPolling();
        },
        async willSendResponse() {
          leave();
          leave = NOT_IN_LANE;
          // A heavy answer is serialized on a turn of its own (1,000 entities: 3 to 6 ms), not in the stretch that completed its last entities.
          if (heavy) await afterPolling();
        },
      };
    },
  };
}
