import type { CustomerResolvers } from "../__generated__/resolvers-types";
import { parseCustomerId } from "../../sales/book-ids";
import { countBooksPurchased, retrieveBooksPurchased } from "../../sales/purchase-history";
import { existingBooks } from "../../sales/loaders";
import { bookCursor, parseBookCursor } from "../cursors";
import { customerGlobalId, customerIdFromEither } from "../global-ids";
import { DEFAULT_WINDOW_SIZE } from "../windows";

export const Customer: CustomerResolvers = {
  // Every id names a customer, as for `customer(id:)`; what it reveals is guarded by scope like any field.
  __resolveReference: (reference) => ({ id: customerIdOf(reference) }),
  id: (customer) => customerGlobalId(customer.id),
  databaseId: (customer) => customer.id,
  globalId: (customer) => customerGlobalId(customer.id),

  // Needs purchases:read, checked for the whole operation before any resolver runs (../access.ts).
  booksPurchased: async (customer, { first, after }, { db, loaders }) => {
    const afterId = parseBookCursor(after);
    const window = await retrieveBooksPurchased(db, customer.id, afterId, first ?? DEFAULT_WINDOW_SIZE);
    // A book missing from `sales` while its extra_sales pages remain is reconcile's to report, not a purchase to show.
    const books = await existingBooks(loaders, window.bookIds);
    return {
      books,
      hasNextPage: window.hasNextPage,
      hasPreviousPage: afterId !== null,
      cursorOf: (book) => bookCursor(book._id),
      count: () => countBooksPurchased(db, customer.id),
    };
  },
};

/** A router's representation names a customer by one of its keys: `id` (either form) or `databaseId`. */
function customerIdOf(reference: { id?: string; databaseId?: string }): string {
  return reference.id !== undefined
    ? customerIdFromEither(reference.id, "representations")
    : parseCustomerId(reference.databaseId ?? "", "representations");
}
