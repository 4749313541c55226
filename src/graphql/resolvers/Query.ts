import type { QueryResolvers } from "../__generated__/resolvers-types";
import { catalogBrowseOf, type CatalogBrowse } from "../../sales/catalog";
import { InvalidInputError } from "../../sales/errors";
import { catalogCursor, parseCatalogCursor } from "../schema/cursors";
import { bookIdFromEither, customerIdFromEither, parseGlobalId } from "../schema/global-ids";
import { embeddedBuyersSelected } from "../schema/selection";
import type { GraphQLContext } from "../execution/context";
import { windowSizeOf } from "../schema/windows";

/** How many ids `Query.nodes` takes at once, as many as a window of books. */
const MAX_NODES = 100;

export const Query: QueryResolvers = {
  book: (_parent, { id }, { loaders }) => loaders.shownBook.load(bookIdFromEither(id)),

  books: async (_parent, { first, after, last, before, orderBy, filter, search }, { catalog }, info) => {
    const size = windowSizeOf({ first, last });
    // An explicit `orderBy: null` asks for the default order, as leaving it out does.
    const browse = catalogBrowseOf({ ...(orderBy ?? DEFAULT_ORDER), filter, search });
    const window = "first" in size ? forwardWindow(size.first, after, before, browse) : backwardWindow(size.last, after, before, browse);
    const found = await catalog.browse(browse, window, embeddedBuyersSelected(info, ["edges", "node"]));
    return { ...found, cursorOf: (book) => catalogCursor(browse, book), count: () => catalog.count(found.query) };
  },

  viewer: (_parent, _arguments, { principal }) => (principal.kind === "shopper" ? { id: principal.customerId } : null),

  customer: (_parent, { id }) => ({ id: customerIdFromEither(id, "id") }),

  node: async (_parent, { id }, context) => (await nodesOf([id], context))[0] ?? null,

  nodes: (_parent, { ids }, context) => {
    if (ids.length > MAX_NODES) throw new InvalidInputError(`ids takes at most ${MAX_NODES} global ids, got ${ids.length}.`, "ids");
    return nodesOf(ids, context);
  },

  salesStats: (_parent, { top }, { catalog }, info) =>
    catalog.salesStats(top, { embeddedBuyers: embeddedBuyersSelected(info, ["largestBooks"]) }),
};

const DEFAULT_ORDER = { field: "ID", direction: "ASC" } as const;

function forwardWindow(first: number, after: string | null | undefined, before: string | null | undefined, browse: CatalogBrowse) {
  if (before != null) throw new InvalidInputError("before pages backward: pass it with last, not first.", "before");
  return { first, after: parseCatalogCursor(after, browse, "after") };
}

function backwardWindow(last: number, after: string | null | undefined, before: string | null | undefined, browse: CatalogBrowse) {
  if (after != null) throw new InvalidInputError("after pages forward: pass it with first, not last.", "after");
  return { last, before: parseCatalogCursor(before, browse, "before") };
}

/** The objects global ids name, in order, null for each that names nothing; every book among them is read by one query. */
async function nodesOf(globalIds: readonly string[], { loaders }: GraphQLContext) {
  return Promise.all(
    globalIds.map(async (globalId) => {
      const named = parseGlobalId(globalId);
      if (named?.type === "Customer") return { id: named.id };
      return named === null ? null : loaders.shownBook.load(named.id);
    }),
  );
}
