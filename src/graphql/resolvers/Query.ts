import type { QueryResolvers } from "../__generated__/resolvers-types";
import { retrieveBooksWindow, retrieveBooksWindowBefore } from "../../sales/books";
import { InvalidInputError } from "../../sales/errors";
import { DEFAULT_LARGEST_BOOKS, retrieveRecentSalesStats, SALES_STATS_COMMANDS } from "../../sales/stats";
import { parseBookCursor } from "../cursors";
import { bookIdFromEither, customerIdFromEither, parseGlobalId } from "../global-ids";
import { embeddedBuyersSelected } from "../selection";
import type { GraphQLContext } from "../context";
import { windowSizeOf } from "../windows";

/** How many ids `Query.nodes` takes at once, as many as a window of books. */
const MAX_NODES = 100;

export const Query: QueryResolvers = {
  book: (_parent, { id }, { loaders }) => loaders.book.load(bookIdFromEither(id)),

  books: async (_parent, { first, after, last, before }, { db, share }, info) => {
    const size = windowSizeOf({ first, last });
    const embeddedBuyers = embeddedBuyersSelected(info, ["edges", "node"]);
    if ("first" in size) {
      if (before != null) throw new InvalidInputError("before pages backward: pass it with last, not first.", "before");
      const afterId = parseBookCursor(after);
      const window = await share.use(1, () => retrieveBooksWindow(db, afterId, size.first, embeddedBuyers));
      return { ...window, hasPreviousPage: afterId !== null };
    }
    if (after != null) throw new InvalidInputError("after pages forward: pass it with first, not last.", "after");
    return share.use(1, () => retrieveBooksWindowBefore(db, parseBookCursor(before, "before"), size.last, embeddedBuyers));
  },

  customer: (_parent, { id }) => ({ id: customerIdFromEither(id, "id") }),

  node: async (_parent, { id }, context) => (await nodesOf([id], context))[0] ?? null,

  nodes: (_parent, { ids }, context) => {
    if (ids.length > MAX_NODES) throw new InvalidInputError(`ids takes at most ${MAX_NODES} global ids, got ${ids.length}.`, "ids");
    return nodesOf(ids, context);
  },

  // Five commands side by side, sent once for every request that asks within the cache's age.
  salesStats: (_parent, { top }, { db, settings, share }, info) =>
    share.use(SALES_STATS_COMMANDS, () =>
      retrieveRecentSalesStats(db, settings, top ?? DEFAULT_LARGEST_BOOKS, {
        embeddedBuyers: embeddedBuyersSelected(info, ["largestBooks"]),
      }),
    ),
};

/** The objects global ids name, in order, null for each that names nothing; every book among them is read by one query. */
async function nodesOf(globalIds: readonly string[], { loaders }: GraphQLContext) {
  return Promise.all(
    globalIds.map(async (globalId) => {
      const named = parseGlobalId(globalId);
      if (named?.type === "Customer") return { id: named.id };
      return named === null ? null : loaders.book.load(named.id);
    }),
  );
}
