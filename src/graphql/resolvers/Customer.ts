import type { CustomerResolvers } from "../__generated__/resolvers-types";
import { parseCustomerId } from "../../sales/book-ids";
import { retrieveBooksPurchased } from "../../sales/customer-books";
import { existingBooks } from "../../sales/loaders";
import { parseBookCursor } from "../cursors";
import { customerGlobalId } from "../global-ids";
import { DEFAULT_WINDOW_SIZE } from "./pagination";

export const Customer: CustomerResolvers = {
  // Every id names a customer, as for `customer(id:)`; what it reveals is guarded by scope like any field.
  __resolveReference: ({ id }) => ({ id: parseCustomerId(id, "representations") }),
  globalId: (customer) => customerGlobalId(customer.id),

  // Needs purchases:read, checked for the whole operation before any resolver runs (../access.ts).
  booksPurchased: async (customer, { first, after }, { db, loaders }) => {
    const afterId = parseBookCursor(after);
    const page = await retrieveBooksPurchased(db, customer.id, afterId, first ?? DEFAULT_WINDOW_SIZE);
    // A book missing from `sales` while its overflow pages remain is reconcile's to report, not a purchase to show.
    const books = await existingBooks(loaders, page.bookIds);
    return { books, hasNextPage: page.hasNextPage, hasPreviousPage: afterId !== null, purchasedBy: customer.id };
  },
};
