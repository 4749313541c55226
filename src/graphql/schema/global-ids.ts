import { fromGlobalId, toGlobalId } from "graphql-relay";
import { formatBookId, MAX_ID_LENGTH, parseBookId, parseCustomerId } from "../../sales/book-ids";
import type { BookId } from "../../sales/documents";

/**
 * Relay's global ids, as Relay's defaults expect them: `id` is graphql-relay's base64 of "Type:id",
 * unique across types, and the id the database stores is `databaseId`. Arguments that name a book or
 * a customer take either (`bookIdFromEither`, `customerIdFromEither`), so a client passes whichever it holds.
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

/**
 * The book an argument names by its global id or by its stored id. A value is read as a global id only
 * when it decodes to a Book's canonical one: a stored id that happened to spell one would be read so.
 */
export function bookIdFromEither(value: string, argument = "id"): BookId {
  const global = parseGlobalId(value);
  return global?.type === "Book" ? global.id : parseBookId(value, argument);
}

/** The customer an argument names by its global id or by the id given to `recordPurchase`, read as `bookIdFromEither` reads books. */
export function customerIdFromEither(value: string, argument = "customerId"): string {
  const global = parseGlobalId(value);
  return global?.type === "Customer" ? global.id : parseCustomerId(value, argument);
}
