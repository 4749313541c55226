import type { BookConnectionResolvers, BookEdgeResolvers } from "../__generated__/resolvers-types";
import { pageInfo, windowEnds } from "../schema/windows";

export const BookConnection: BookConnectionResolvers = {
  // Counted only when a client asks for it, as the list that made the connection says (see its `count`).
  totalCount: ({ count }) => count(),
  edges: ({ books, cursorOf }) => books.map((node) => ({ node, cursorOf })),
  // Only the window's ends carry their cursors into pageInfo.
  pageInfo: async ({ books, hasNextPage, hasPreviousPage, cursorOf }) =>
    pageInfo(windowEnds(books, cursorOf), typeof hasNextPage === "boolean" ? hasNextPage : await hasNextPage(), hasPreviousPage),
};

export const BookEdge: BookEdgeResolvers = {
  // Made when a client selects it: a listing that shows its books without paging by them makes none.
  cursor: ({ node, cursorOf }) => cursorOf(node),
};
