import type { CustomerConnectionResolvers, CustomerEdgeResolvers } from "../__generated__/resolvers-types";
import { customerCursor } from "../cursors";
import { pageInfo } from "../windows";

export const CustomerConnection: CustomerConnectionResolvers = {
  totalCount: ({ book }) => book.purchase_count,
  edges: ({ entries }) => entries,
  pageInfo: ({ entries, hasNextPage, hasPreviousPage }) =>
    pageInfo(
      entries.map((entry) => customerCursor(entry.position)),
      hasNextPage,
      hasPreviousPage,
    ),
};

export const CustomerEdge: CustomerEdgeResolvers = {
  cursor: (entry) => customerCursor(entry.position),
  node: (entry) => ({ id: entry.customerId }),
};
