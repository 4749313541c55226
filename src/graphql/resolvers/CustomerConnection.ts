import type { CustomerConnectionResolvers, CustomerEdgeResolvers } from "../__generated__/resolvers-types";
import { customerCursor } from "../schema/cursors";
import { pageInfo, windowEnds } from "../schema/windows";

export const CustomerConnection: CustomerConnectionResolvers = {
  totalCount: ({ book }) => book.purchase_count,
  edges: ({ buyers }) => buyers,
  pageInfo: ({ buyers, hasNextPage, hasPreviousPage }) =>
    pageInfo(
      windowEnds(buyers, (buyer) => customerCursor(buyer.position)),
      hasNextPage,
      hasPreviousPage,
    ),
};

export const CustomerEdge: CustomerEdgeResolvers = {
  cursor: (buyer) => customerCursor(buyer.position),
  node: (buyer) => ({ id: buyer.customerId }),
};
