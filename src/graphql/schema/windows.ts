// A client's window of a list (Relay's first/last), shared by the resolvers, the selection reader and the cost limit.
import { InvalidInputError } from "../../sales/errors";

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

/** A window's ends, as cursors; null for an empty window. */
export type WindowEnds = { start: string; end: string } | null;

/**
 * The schema's `PageInfo`, spelled here rather than imported from the generated resolver types: those import the
 * request context, which reaches back here through metrics and caching, a circle of 7 files. The resolvers that
 * return it are typed by the generated types, so a field the schema adds or changes still fails the type check.
 */
export interface WindowPageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export function pageInfo(ends: WindowEnds, hasNextPage: boolean, hasPreviousPage: boolean): WindowPageInfo {
  return { hasNextPage, hasPreviousPage, startCursor: ends?.start ?? null, endCursor: ends?.end ?? null };
}

/** The cursors of a window's first and last items, each made once (the same item's in a window of one). */
export function windowEnds<T>(items: readonly T[], cursorOf: (item: T) => string): WindowEnds {
  const first = items[0];
  if (first === undefined) return null;
  const start = cursorOf(first);
  return { start, end: items.length === 1 ? start : cursorOf(items.at(-1)!) };
}
