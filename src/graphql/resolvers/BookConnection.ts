import type { BookConnectionResolvers } from "../__generated__/resolvers-types";
import { pageInfo } from "../windows";

export const BookConnection: BookConnectionResolvers = {
  // Counted only when a client asks for it, as the list that made the connection says (see its `count`).
  totalCount: ({ count }) => count(),
  edges: ({ books, cursorOf }) => books.map((book) => ({ cursor: cursorOf(book), node: book })),
  pageInfo: async ({ books, hasNextPage, hasPreviousPage, cursorOf }) =>
    pageInfo(books.map(cursorOf), typeof hasNextPage === "boolean" ? hasNextPage : await hasNextPage(), hasPreviousPage),
};
