import type { NodeResolvers } from "../__generated__/resolvers-types";

export const Node: NodeResolvers = {
  // Books are stored documents with an `_id`; customers are known only by their `id`.
  __resolveType: (node) => ("_id" in node ? "Book" : "Customer"),
};
