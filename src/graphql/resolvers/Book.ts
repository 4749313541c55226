import type { BookResolvers } from "../__generated__/resolvers-types";
import { formatBookId, parseBookId } from "../../sales/book-ids";
import { retrieveBuyersWindow } from "../../sales/book-buyers";
import type { BookDocument } from "../../sales/documents";
import { foundBook } from "../../sales/books";
import type { SalesLoaders } from "../../sales/loaders";
import type { BookModel } from "../schema/models";
import type { Recommendation } from "../../sales/recommendations";
import { parseCustomerCursor } from "../schema/cursors";
import { bookGlobalId, bookIdFromEither, customerIdFromEither } from "../schema/global-ids";
import { windowSizeOf } from "../schema/windows";

/** How many recommendations `alsoBought` returns when `first` is null. */
const DEFAULT_RECOMMENDATIONS = 10;

export const Book: BookResolvers = {
  // A router's `_entities` representations: read in batches, as `book(id:)` reads a book, a batch's worth per turn of the event loop.
  __resolveReference: async (reference, { loaders }) => {
    await loaders.referenceTurn();
    return loaders.shownBook.load(bookIdOf(reference));
  },
  id: (book) => bookGlobalId(book._id),
  databaseId: (book) => formatBookId(book._id),
  globalId: (book) => bookGlobalId(book._id),
  year: (book) => book.year ?? null,
  purchaseCount: (book) => book.purchase_count,
  hasExtras: (book) => book.has_extras,

  // Each needs purchases:read, checked for the whole operation before any resolver runs (../access.ts).
  customersPurchased: async (book, { first, after, last, before }, { loaders }) => {
    const request = { after: parseCustomerCursor(after), before: parseCustomerCursor(before, "before"), ...windowSizeOf({ first, last }) };
    const withBuyers = await withEmbeddedBuyers(book, loaders);
    const window = await retrieveBuyersWindow((slice) => loaders.extraSalesWindow.load(slice), withBuyers, request);
    return { ...window, book: withBuyers };
  },

  purchasedBy: (book, { customerId }, { loaders }) =>
    loaders.purchasedBy.load({ bookId: book._id, customerId: customerIdFromEither(customerId), hasExtras: book.has_extras }),

  alsoBought: async (book, { first }, { catalog, loaders }) => {
    const recommended = await catalog.alsoBought(book._id, first ?? DEFAULT_RECOMMENDATIONS);
    const loaded = await Promise.all(
      recommended.map(async ({ _id, sharedBuyers }) => ({ book: await loaders.shownBook.load(_id), sharedBuyers })),
    );
    // A book id left only on extra_sales pages (reconcile reports those) is no book to recommend.
    return loaded.filter((recommendation): recommendation is Recommendation => recommendation.book !== null);
  },
};

/** The book with its embedded buyers: a write sends none back, so the request's loader reads them (one query for every such book). */
async function withEmbeddedBuyers(book: BookModel, loaders: SalesLoaders): Promise<BookDocument> {
  if (hasEmbeddedBuyers(book)) return book;
  // Books are never deleted by this API, so a book a write has just answered with is there.
  return foundBook(await loaders.book.load(book._id), book._id);
}

function hasEmbeddedBuyers(book: BookModel): book is BookDocument {
  return book.customers_purchased !== undefined;
}

/** A router's representation names a book by one of its keys: `id` (either form) or `databaseId`. */
function bookIdOf(reference: { id?: string; databaseId?: string }) {
  return reference.id !== undefined
    ? bookIdFromEither(reference.id, "representations")
    : parseBookId(reference.databaseId ?? "", "representations");
}
