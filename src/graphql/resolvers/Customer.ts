import type { CustomerResolvers } from "../__generated__/resolvers-types";
import { parseCustomerId } from "../../sales/book-ids";
import { checkWindowSize } from "../../sales/books";
import type { BookDocument } from "../../sales/documents";
import { existingBooks } from "../../sales/loaders";
import { bookCursor, parseBookCursor } from "../schema/cursors";
import { customerGlobalId, customerIdFromEither } from "../schema/global-ids";
import { DEFAULT_WINDOW_SIZE } from "../schema/windows";

export const Customer: CustomerResolvers = {
  // Every id names a customer, as for `customer(id:)`; what it reveals is guarded by scope like any field. Async, as
  // every `__resolveReference` must be: @apollo/subgraph maps a request's representations in turn, and a synchronous
  // throw would stop the map, leaving the promises of the representations before it with no one to await them.
  __resolveReference: async (reference) => ({ id: customerIdOf(reference) }),
  id: (customer) => customerGlobalId(customer.id),
  databaseId: (customer) => customer.id,
  globalId: (customer) => customerGlobalId(customer.id),

  // Needs purchases:read, checked for the whole operation before any resolver runs (../access.ts).
  booksPurchased: async (customer, { first, after }, { customers, loaders }) => {
    const afterId = parseBookCursor(after);
    const size = first ?? DEFAULT_WINDOW_SIZE;
    checkWindowSize(size);
    const read = () => customers.booksPurchased(customer.id, afterId, size);
    const page = {
      hasPreviousPage: afterId !== null,
      cursorOf: (book: BookDocument) => bookCursor(book._id),
      count: () => customers.countBooksPurchased(customer.id),
    };
    // An empty page reads nothing, unless its pageInfo is asked whether books follow.
    if (size === 0) return { ...page, books: [], hasNextPage: async () => (await read()).hasNextPage };
    const window = await read();
    // A book missing from `sales` while its extra_sales pages remain is reconcile's to report, not a purchase to show.
    return { ...page, books: await existingBooks(loaders, window.bookIds), hasNextPage: window.hasNextPage };
  },
};

/** A router's representation names a customer by one of its keys: `id` (either form) or `databaseId`. */
function customerIdOf(reference: { id?: string; databaseId?: string }): string {
  return reference.id !== undefined
    ? customerIdFromEither(reference.id, "representations")
    : parseCustomerId(reference.databaseId ?? "", "representations");
}
