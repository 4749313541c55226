import type { BookResolvers } from "../__generated__/resolvers-types";
import { formatBookId } from "../../sales/book-ids";
import { retrieveCustomersPage } from "../../sales/customers";
import { parseCustomerCursor } from "../cursors";
import { DEFAULT_PAGE_SIZE } from "./pagination";

export const Book: BookResolvers = {
  id: (book) => formatBookId(book._id),
  year: (book) => book.year ?? null,
  purchaseCount: (book) => book.purchase_count,
  hasExtras: (book) => book.has_extras,

  // Needs purchases:read, checked for the whole operation before any resolver runs (../access.ts).
  customersPurchased: async (book, { first, after }, { loaders }) => {
    const afterPosition = parseCustomerCursor(after);
    const start = afterPosition === null ? 0 : afterPosition + 1;
    const loadPage = loaders.extraSalesPage.load.bind(loaders.extraSalesPage);
    const page = await retrieveCustomersPage(loadPage, book, start, first ?? DEFAULT_PAGE_SIZE);
    return { ...page, book, hasPreviousPage: afterPosition !== null };
  },
};
