import { ApolloArmor } from "@escape.tech/graphql-armor";
import type { GraphQLArmorCallbackConfiguration } from "@escape.tech/graphql-armor-types";
import { GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { getComplexity, type ComplexityEstimator, type ComplexityEstimatorArgs } from "graphql-query-complexity";
import { statusOf, type ErrorCode } from "../../error-codes";
import { SEARCH_CANDIDATES_PER_RESULT } from "../../sales/catalog";
import { searchTermsOf } from "../../sales/search-words";
import { SALES_STATS_COMMANDS } from "../../sales/stats";
import { LIGHT_DOCUMENTS } from "./heavy-lane";
import { DEFAULT_WINDOW_SIZE } from "../windows";
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
  /** Documents the database may examine for one request, as `documentsEstimator` weighs them. */
  maxDocuments: 1_000,
  /** The body limit as requests are told it. */
  maxBodySize: "100kb",
  /** The same limit as Fastify's `bodyLimit` takes it, in bytes. */
  maxBodyBytes: 100 * 1024,
} as const;

/** The arguments that say how many items a list field returns, and so how often its selection is paid for: `last` weighs as `first`. */
const LIST_SIZE_ARGUMENTS: readonly string[] = ["first", "last", "top"];

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
  // The window, and the catalog's count (one metadata read); a search first counts its words' books, one `count` each at most.
  Query: { books: (args) => 2 + searchTermCount(args), salesStats: () => SALES_STATS_COMMANDS },
  // Its aggregation is per book; none for `first: 0`.
  Book: { alsoBought: (args) => (args["first"] === 0 ? 0 : 1) },
  // Two queries for the window (with `first: 0`, only if its pageInfo asks whether books follow), two `distinct` for its count.
  Customer: { booksPurchased: () => 4 },
};

/** How many words of a search may be counted before its window is read: each one, its last as a prefix. */
function searchTermCount(args: Arguments): number {
  const terms = typeof args["search"] === "string" ? searchTermsOf(args["search"]) : null;
  return terms === null ? 0 : terms.words.length + 1;
}

/**
 * The pages of a book's extra_sales one window of its buyers may read: at most two, as a window holds at most
 * 100 buyers and a page (EXTRA_SALES_PAGE_SIZE, 1,000 by default) at least as many.
 */
const PAGES_PER_WINDOW = 2;

/**
 * The documents a field makes the database examine for each parent it is selected on, besides what its
 * selection examines: a window of books reads one more than it returns, a search its candidates (at most
 * SEARCH_CANDIDATES_PER_RESULT per book asked for, read up to three times, see catalog.ts), a book loaded by
 * id one document, a window of buyers its extra_sales pages, a purchase check the book and one page.
 * `salesStats` adds none: one round of its commands, shared by a server's requests for seconds, serves every alias.
 */
const DOCUMENTS_PER_PARENT: Readonly<Record<string, Readonly<Record<string, (args: Arguments) => number>>>> = {
  Query: {
    books: (args) => {
      const size = windowOf(args);
      return searchTermCount(args) === 0 ? size + 1 : 3 * SEARCH_CANDIDATES_PER_RESULT * Math.max(size, 1) + 1;
    },
    book: () => 1,
    node: () => 1,
    nodes: (args) => (Array.isArray(args["ids"]) ? args["ids"].length : 0),
    _entities: (args) => (Array.isArray(args["representations"]) ? args["representations"].length : 0),
  },
  Book: { customersPurchased: () => PAGES_PER_WINDOW, purchasedBy: () => 2, alsoBought: (args) => 1 + windowOf(args) },
  // Two reads of the window (its books and the customer's pages), and its count.
  Customer: { booksPurchased: (args) => 3 * (windowOf(args) + 1) },
};

/**
 * The documents a request may make the database examine: each field's own for its parent, and its
 * selection's once per item it may return. The limit on them (`maxDocuments`) bounds how long a request
 * keeps its share of the pool busy, which the cost, counting commands, does not: 15 windows of buyers on
 * 400 representations send few commands (one batched aggregation per 50 windows) but read 12,400 documents.
 */
const documentsEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) =>
  (DOCUMENTS_PER_PARENT[type.name]?.[field.name]?.(args) ?? 0) + itemsOf(field, args) * childComplexity;

/** A window's size from Relay's arguments (`first`, `last`, `top`), the default when none is given. */
function windowOf(args: Arguments): number {
  const size: unknown = LIST_SIZE_ARGUMENTS.map((name) => args[name]).find((value) => value != null);
  return Math.max(0, typeof size === "number" ? size : DEFAULT_WINDOW_SIZE);
}

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

/** What running an operation weighs: its cost, and the documents it may make the database examine (see `documentsEstimator`). */
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
  const weigh = (estimator: ComplexityEstimator) =>
    getComplexity({ schema, query: document, operationName: operation.name?.value, variables, estimators: [estimator] });
  try {
    return { cost: weigh(databaseWorkEstimator), documents: weigh(documentsEstimator) };
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
