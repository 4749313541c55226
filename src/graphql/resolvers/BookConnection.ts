import type { BookConnectionResolvers, BookEdgeResolvers } from "../__generated__/resolvers-types";
import { countBooks } from "../../sales/books";
import { bookCursor } from "../cursors";
import { pageInfo } from "./pagination";

export const BookConnection: BookConnectionResolvers = {
  // Counted only when a client asks for it, from the collection's metadata (see countBooks for where that can be off).
  totalCount: (_connection, _args, { db }) => countBooks(db),
  edges: (connection) => connection.books,
  pageInfo: ({ books, hasNextPage, hasPreviousPage }) =>
    pageInfo(books.map((book) => bookCursor(book._id)), hasNextPage, hasPreviousPage),
};

export const BookEdge: BookEdgeResolvers = {
  cursor: (book) => bookCursor(book._id),
  node: (book) => book,
};
