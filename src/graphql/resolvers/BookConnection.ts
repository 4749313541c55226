import type { BookConnectionResolvers, BookEdgeResolvers } from "../__generated__/resolvers-types";
import { countBooks } from "../../sales/books";
import { countBooksPurchased } from "../../sales/purchase-history";
import { bookCursor } from "../cursors";
import { pageInfo } from "../windows";

export const BookConnection: BookConnectionResolvers = {
  // Counted only when a client asks for it: the catalog's from the collection's metadata (see countBooks for
  // where that can be off), a customer's by the distinct books of their purchases.
  totalCount: ({ purchasedBy }, _args, { db, share }) =>
    purchasedBy === undefined ? share.use(1, () => countBooks(db)) : share.use(2, () => countBooksPurchased(db, purchasedBy)),
  edges: (connection) => connection.books,
  pageInfo: async ({ books, hasNextPage, hasPreviousPage }) =>
    pageInfo(
      books.map((book) => bookCursor(book._id)),
      typeof hasNextPage === "boolean" ? hasNextPage : await hasNextPage(),
      hasPreviousPage,
    ),
};

export const BookEdge: BookEdgeResolvers = {
  cursor: (book) => bookCursor(book._id),
  node: (book) => book,
};
