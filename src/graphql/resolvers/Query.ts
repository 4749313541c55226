import type { QueryResolvers } from "../__generated__/resolvers-types";
import { parseBookId } from "../../sales/book-ids";
import { retrieveBooksPage } from "../../sales/books";
import { DEFAULT_LARGEST_BOOKS, retrieveRecentSalesStats } from "../../sales/stats";
import { parseBookCursor } from "../cursors";
import { embeddedBuyersSelected } from "../selection";
import { DEFAULT_PAGE_SIZE } from "./pagination";

export const Query: QueryResolvers = {
  book: (_parent, { id }, { loaders }) => loaders.book.load(parseBookId(id)),

  books: async (_parent, { first, after }, { db }, info) => {
    const afterId = parseBookCursor(after);
    const page = await retrieveBooksPage(db, afterId, first ?? DEFAULT_PAGE_SIZE, embeddedBuyersSelected(info, ["edges", "node"]));
    return { ...page, hasPreviousPage: afterId !== null };
  },

  salesStats: (_parent, { top }, { db, settings }, info) =>
    retrieveRecentSalesStats(db, settings, top ?? DEFAULT_LARGEST_BOOKS, { embeddedBuyers: embeddedBuyersSelected(info, ["largestBooks"]) }),
};
