// A client's window of a list (Relay's first/last), shared by the resolvers, the selection reader and the cost limit.
import type { PageInfo } from "./__generated__/resolvers-types";
import { InvalidInputError } from "../sales/errors";

/** Used when a client passes neither `first` nor `last` (or `first: null`), which GraphQL does not replace with a default. */
export const DEFAULT_WINDOW_SIZE = 20;

/** Which end of the list a window is taken from, and how many items it holds. */
export type WindowSize = { first: number } | { last: number };

/** Relay's `first`/`last` pair: one of them, or the first 20 when neither is given. */
export function windowSizeOf(args: { first?: number | null; last?: number | null }): WindowSize {
  if (args.first != null && args.last != null) {
    throw new InvalidInputError("Pass first or last, not both: a window is taken from one end of the list.", "last");
  }
  return args.last != null ? { last: args.last } : { first: args.first ?? DEFAULT_WINDOW_SIZE };
}

export function pageInfo(cursors: string[], hasNextPage: boolean, hasPreviousPage: boolean): PageInfo {
  return {
    hasNextPage,
    hasPreviousPage,
    startCursor: cursors[0] ?? null,
    endCursor: cursors.at(-1) ?? null,
  };
}
