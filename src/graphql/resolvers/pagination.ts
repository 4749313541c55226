import type { PageInfo } from "../__generated__/resolvers-types";

/** Used when a client passes `first: null`, which GraphQL does not replace with the schema's default. */
export const DEFAULT_PAGE_SIZE = 20;

export function pageInfo(cursors: string[], hasNextPage: boolean, hasPreviousPage: boolean): PageInfo {
  return {
    hasNextPage,
    hasPreviousPage,
    startCursor: cursors[0] ?? null,
    endCursor: cursors.at(-1) ?? null,
  };
}
