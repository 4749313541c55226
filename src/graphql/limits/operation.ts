import type { ApolloServerPlugin, GraphQLRequestListener } from "@apollo/server";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import type { GraphQLArmorCallbackConfiguration } from "@escape.tech/graphql-armor-types";
import { GraphQLError, getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { getComplexity, type ComplexityEstimator, type ComplexityEstimatorArgs } from "graphql-query-complexity";
import { statusOf, type ErrorCode } from "../../error-codes";
import { SALES_STATS_COMMANDS } from "../../sales/stats";
import { memoizeByOperation } from "../operation-memo";
import { DEFAULT_WINDOW_SIZE } from "../windows";

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
  /** `express.json`'s limit, in its own notation. */
  maxBodySize: "100kb",
} as const;

/** The arguments that say how many items a list field returns, and so how often its selection is paid for: `last` weighs as `first`. */
const LIST_SIZE_ARGUMENTS: readonly string[] = ["first", "last", "top"];

/** A refusal for breaking a request limit; `extensions.code` says which one. */
export class RequestLimitError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message, { extensions: { code, http: { status: statusOf(code) } } });
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

/**
 * What one database command a field sends for its parent weighs: 500 fields. The cost limit (100,000)
 * then lets one request send at most 200 such commands, however its parents are multiplied (`_entities`,
 * `nodes`, lists, aliases), while the storefront's heaviest page (two commands) stays under a third of it.
 */
export const COMMAND_COST = 500;

type Arguments = ComplexityEstimatorArgs["args"];

/**
 * The fields that send commands of their own for each parent they are selected on, and how many at most.
 * Fields read through the request's loaders (`book`, `node`, `nodes`, `_entities`, `customersPurchased`,
 * `purchasedBy`, `alsoBought`'s sample) are not listed: one command per batch serves every parent. A
 * connection's `totalCount` is weighed on the field returning the connection, whose selection is paid for
 * once per item: weighed there, it would be counted `first` times over.
 */
const COMMANDS_PER_PARENT: Readonly<Record<string, Readonly<Record<string, (args: Arguments) => number>>>> = {
  // The window, and the catalog's count (one metadata read).
  Query: { books: () => 2, salesStats: () => SALES_STATS_COMMANDS },
  // Its aggregation is per book; none for `first: 0`.
  Book: { alsoBought: (args) => (args["first"] === 0 ? 0 : 1) },
  // Two queries for the window (with `first: 0`, only if its pageInfo asks whether books follow), two `distinct` for its count.
  Customer: { booksPurchased: () => 4 },
};

/**
 * Every field costs 1, and its own commands COMMAND_COST each; a list field costs its selection once per
 * item it may return (`nodes`: once per id; a router's `_entities`: once per representation), so a field
 * under a list is paid for once per parent.
 */
const databaseWorkEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const commands = COMMANDS_PER_PARENT[type.name]?.[field.name]?.(args) ?? 0;
  return commands * COMMAND_COST + 1 + itemsOf(field, args) * childComplexity;
};

/** How many items a field may return, each paying for its selection: 1 for a field that is no list. */
function itemsOf(field: ComplexityEstimatorArgs["field"], args: Arguments): number {
  const named = args["ids"] ?? args["representations"];
  if (Array.isArray(named)) return named.length;
  const sizeArguments = field.args.filter((argument) => LIST_SIZE_ARGUMENTS.includes(argument.name));
  if (sizeArguments.length === 0) return 1;
  const size: unknown = sizeArguments.map((argument) => args[argument.name]).find((value) => value != null);
  // An explicit null gets the default window size from the resolvers; a negative size is refused by them.
  return Math.max(0, typeof size === "number" ? size : DEFAULT_WINDOW_SIZE);
}

/** The cost of running `operation` of `document` with `variables`, or undefined when the variables are invalid. */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): number | undefined {
  // Invalid variables are refused by execution (BAD_USER_INPUT) before any resolver runs.
  if (getVariableValues(schema, operation.variableDefinitions ?? [], variables).errors) return undefined;
  try {
    return getComplexity({
      schema,
      query: document,
      operationName: operation.name?.value,
      variables,
      estimators: [databaseWorkEstimator],
    });
  } catch (error) {
    // An argument its variables leave invalid (`@include(if: null)`): inputCheckPlugin refuses it with BAD_USER_INPUT.
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
}

/** The refusal of an operation that costs `cost` (undefined: it could not be weighed, which other checks refuse), or undefined when it fits. */
export function costRefusal(cost: number | undefined, maxCost: number = REQUEST_LIMITS.maxCost): RequestLimitError | undefined {
  if (cost === undefined || cost <= maxCost) return undefined;
  return new RequestLimitError(
    "QUERY_TOO_COMPLEX",
    `The query costs ${cost}, over the limit of ${maxCost}; ask for fewer items with smaller \`first\` values.`,
  );
}

/** Refuses an operation whose cost, weighed with its variables, is over `maxCost`; weighed once per query text, operation and variable values. */
export function costLimitPlugin<TContext extends object>(maxCost: number = REQUEST_LIMITS.maxCost): ApolloServerPlugin<TContext> {
  const costOf = memoizeByOperation(({ schema, document, request }, operation) =>
    operationCost(schema, document, operation, request.variables ?? {}),
  );
  // One listener, already resolved, for every request: nothing in it belongs to a request.
  const listener: GraphQLRequestListener<TContext> = {
    async didResolveOperation(requestContext) {
      const { operation } = requestContext;
      if (!operation) return;
      const refused = costRefusal(costOf(requestContext, operation), maxCost);
      if (refused) throw refused;
    },
  };
  const ready = Promise.resolve(listener);
  return { requestDidStart: () => ready };
}
