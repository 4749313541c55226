import { fromGlobalId, toGlobalId } from "graphql-relay";
import { formatBookId, MAX_ID_LENGTH, parseBookId } from "../sales/book-ids";
import type { BookId } from "../sales/documents";

/**
 * Relay's global ids live beside the database ids rather than replacing them: `id` stays what the
 * database stores and what `book(id:)` and `recordPurchase` take, so existing clients are untouched;
 * `globalId` is graphql-relay's base64 of "Type:id", unique across types, for `Query.node`.
 */
export function bookGlobalId(id: BookId): string {
  return toGlobalId("Book", formatBookId(id));
}

export function customerGlobalId(id: string): string {
  return toGlobalId("Customer", id);
}

/** What a global id names, or null for one this API could not have issued (Relay expects null, not an error). */
export function parseGlobalId(globalId: string): { type: "Book"; id: BookId } | { type: "Customer"; id: string } | null {
  const { type, id } = fromGlobalId(globalId);
  if (id.length === 0 || id.length > MAX_ID_LENGTH) return null;
  if (type === "Customer") return { type, id };
  if (type !== "Book") return null;
  // Only the id's canonical spelling names the book ("007" would parse as the book 7).
  const bookId = parseBookId(id);
  return formatBookId(bookId) === id ? { type, id: bookId } : null;
}
