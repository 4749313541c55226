import { getDirectiveValues, isObjectType, type GraphQLSchema } from "graphql";
import type { ComplexityEstimator, ComplexityEstimatorArgs } from "graphql-query-complexity";
import { SEARCH_CANDIDATES_PER_RESULT } from "../../sales/catalog";
import { searchTermsOf } from "../../sales/search-words";
import type { CostDirectiveArgs, ListSizeDirectiveArgs } from "../__generated__/resolvers-types";

/**
 * What one database command a field sends for its parent weighs: 500 fields. The cost limit (100,000)
 * then lets one request send at most 200 such commands, however its parents are multiplied (`_entities`,
 * `nodes`, lists, aliases), while the storefront's heaviest operation (two commands) stays under a third of it.
 * schema.graphql's `@cost` weights are this times the commands each field sends; test/api/cost-directives.test.ts
 * measures the commands.
 */
export const COMMAND_COST = 500;

/** A field as its `@cost` and `@listSize` declare it in the schema (the IBM GraphQL Cost Directives specification's directives). */
export interface FieldCost {
  /** `@cost(weight:)`: what the field's own commands weigh for each parent; 0 without the directive. */
  weight: number;
  /** `@listSize`, when the field has it. */
  listSize?: { assumedSize: number | undefined; slicingArguments: readonly string[] };
}

/** A field's place in the schema, as the IBM specification and Apollo name it: `Type.field`. */
export type Coordinate = `${string}.${string}`;

/**
 * Every field's `@cost` and `@listSize`, read from the directives on its definition (schema.graphql, as
 * `buildSubgraphSchema` keeps them) once for each schema built: the same figures a router's demand control reads
 * from the subgraph's SDL. graphql-query-complexity's own `directiveEstimator` does not fit: it reads a
 * `@complexity(value:, multipliers:)` directive, multiplies the field's own value with its selection, and
 * multiplies every multiplier given, where the specification counts the largest slicing argument.
 */
export function readFieldCosts(schema: GraphQLSchema): ReadonlyMap<Coordinate, FieldCost> {
  const cost = schema.getDirective("cost");
  const listSize = schema.getDirective("listSize");
  if (!cost || !listSize)
    throw new Error("The schema declares no @cost or @listSize: build it from schema.graphql and federation.graphql.");
  const costs = new Map<Coordinate, FieldCost>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.astNode) continue;
      // getDirectiveValues coerces the arguments by the directives' definitions, which codegen's types follow.
      const weighed = getDirectiveValues(cost, field.astNode) as CostDirectiveArgs | undefined;
      const size = getDirectiveValues(listSize, field.astNode) as ListSizeDirectiveArgs | undefined;
      if (weighed === undefined && size === undefined) continue;
      costs.set(`${type.name}.${field.name}`, {
        weight: weighed?.weight ?? 0,
        ...(size && { listSize: { assumedSize: size.assumedSize ?? undefined, slicingArguments: size.slicingArguments ?? [] } }),
      });
    }
  }
  return costs;
}

type Arguments = ComplexityEstimatorArgs["args"];

/**
 * What the directives cannot say, as little as there is of it. A `@cost` weight is one number, where two fields
 * send a number of commands that their arguments decide: a search first counts its words' books (one `count`
 * each at most, see catalog.ts), and `alsoBought(first: 0)` sends nothing. The weight here replaces the
 * directive's for those arguments; a router, reading only the directive, weighs a search as a plain window.
 */
const WEIGHT_BY_ARGUMENTS: Readonly<Record<Coordinate, (weight: number, args: Arguments) => number>> = {
  "Query.books": (weight, args) => weight + COMMAND_COST * searchTermCount(args),
  "Book.alsoBought": (weight, args) => (args["first"] === 0 ? 0 : weight),
};

/** How many words of a search may be counted before its window is read: each one, its last as a prefix. */
function searchTermCount(args: Arguments): number {
  const terms = typeof args["search"] === "string" ? searchTermsOf(args["search"]) : null;
  return terms === null ? 0 : terms.words.length + 1;
}

/**
 * The lists whose size is the length of a list argument, which `@listSize` cannot name (its slicing arguments
 * are integers): `nodes` (whose `@listSize` tells a router its largest size instead), the `_entities` that
 * @apollo/subgraph adds, and `bookSales`, which sends each book named.
 */
const SIZED_BY_LIST_ARGUMENT: Readonly<Record<Coordinate, string>> = {
  "Query.nodes": "ids",
  "Query._entities": "representations",
  "Subscription.bookSales": "ids",
};

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
 * A table, not a directive: the IBM specification weighs what a field costs, and has no place for a second
 * figure; it sits here so that it is read beside the directives, and a change to one shows the other.
 */
const DOCUMENTS_PER_PARENT: Readonly<Record<Coordinate, (args: Arguments, items: number) => number>> = {
  "Query.books": (args, items) => (searchTermCount(args) === 0 ? items + 1 : 3 * SEARCH_CANDIDATES_PER_RESULT * Math.max(items, 1) + 1),
  "Query.book": () => 1,
  "Query.node": () => 1,
  "Query.nodes": (_args, items) => items,
  "Query._entities": (_args, items) => items,
  "Book.customersPurchased": () => PAGES_PER_WINDOW,
  "Book.purchasedBy": () => 2,
  "Book.alsoBought": (_args, items) => 1 + items,
  // Two reads of the window (its books and the customer's pages), and its count.
  "Customer.booksPurchased": (_args, items) => 3 * (items + 1),
};

/** The two estimators of a schema: its cost (commands, from the directives) and its documents (see `DOCUMENTS_PER_PARENT`). */
export interface FieldEstimators {
  cost: ComplexityEstimator;
  documents: ComplexityEstimator;
}

const estimatorsBySchema = new WeakMap<GraphQLSchema, FieldEstimators>();

/** The estimators that weigh operations on `schema`, its directives read on first use (schema.ts: at start-up) and kept as long as the schema. */
export function fieldEstimators(schema: GraphQLSchema): FieldEstimators {
  let estimators = estimatorsBySchema.get(schema);
  if (!estimators) {
    estimators = estimatorsOf(readFieldCosts(schema));
    estimatorsBySchema.set(schema, estimators);
  }
  return estimators;
}

function estimatorsOf(costs: ReadonlyMap<Coordinate, FieldCost>): FieldEstimators {
  /** How many items a field may return, each paying for its selection: 1 for a field that is no list. */
  const itemsOf = (coordinate: Coordinate, args: Arguments): number => {
    const named = SIZED_BY_LIST_ARGUMENT[coordinate];
    if (named !== undefined) return Array.isArray(args[named]) ? args[named].length : 0;
    const listSize = costs.get(coordinate)?.listSize;
    if (!listSize) return 1;
    const given = listSize.slicingArguments.map((name) => args[name]).filter((value): value is number => typeof value === "number");
    // An explicit null gets the assumed size, as the resolvers give it the default window size; a negative size is refused by them.
    return Math.max(0, given.length > 0 ? Math.max(...given) : (listSize.assumedSize ?? 1));
  };
  return {
    /**
     * Every field costs 1, and its own commands its `@cost` weight; a list field costs its selection once per
     * item it may return (`nodes`: once per id; a router's `_entities`: once per representation), so a field
     * under a list is paid for once per parent. A connection's `totalCount` and `pageInfo` are paid for with its
     * edges, where a router (`sizedFields`) pays for them once: this weighs at least as much.
     */
    cost: ({ type, field, args, childComplexity }) => {
      const coordinate: Coordinate = `${type.name}.${field.name}`;
      const weight = costs.get(coordinate)?.weight ?? 0;
      const own = WEIGHT_BY_ARGUMENTS[coordinate]?.(weight, args) ?? weight;
      return own + 1 + itemsOf(coordinate, args) * childComplexity;
    },
    /**
     * The documents a request may make the database examine: each field's own for its parent, and its
     * selection's once per item it may return. The limit on them (`maxDocuments`) bounds how long a request
     * keeps its share of the pool busy, which the cost, counting commands, does not: 15 windows of buyers on
     * 400 representations send few commands (one batched aggregation per 50 windows) but read 12,400 documents.
     */
    documents: ({ type, field, args, childComplexity }) => {
      const coordinate: Coordinate = `${type.name}.${field.name}`;
      const items = itemsOf(coordinate, args);
      return (DOCUMENTS_PER_PARENT[coordinate]?.(args, items) ?? 0) + items * childComplexity;
    },
  };
}
