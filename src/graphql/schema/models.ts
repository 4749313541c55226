import type { BookDocument, BookWithoutBuyers } from "../../sales/documents";
import type { BuyersWindow } from "../../sales/book-buyers";

/**
 * A book as the Book resolvers receive it: as a read sent it back (its embedded buyers, or the first
 * of them, see `embeddedBuyersProjection`), or as a write did, without them (see `WITHOUT_BUYERS`).
 */
export type BookModel = BookWithoutBuyers & Partial<Pick<BookDocument, "customers_purchased">>;

/** What `Query.books` and `Customer.booksPurchased` hand to the BookConnection resolvers: the window read, with the count left for when it is asked for. */
export interface BookConnectionModel {
  books: BookDocument[];
  /** Asked for only when `pageInfo` is selected, where finding it out sends commands (an empty page's). */
  hasNextPage: boolean | (() => Promise<boolean>);
  hasPreviousPage: boolean;
  /** Each book's cursor in this list: `Query.books`' carry its browse and order key, a customer's only the book id. */
  cursorOf: (book: BookDocument) => string;
  /** Counts the list when totalCount is asked for. */
  count: () => Promise<number>;
}

/** One book of a BookConnection, with how its cursor in that list is made, when a client asks for it. */
export interface BookEdgeModel {
  node: BookDocument;
  cursorOf: BookConnectionModel["cursorOf"];
}

/** What `Book.customersPurchased` hands to the CustomerConnection resolvers. */
export interface CustomerConnectionModel extends BuyersWindow {
  book: BookDocument;
}

/** A customer, known only by id: the API stores nothing else about customers. */
export interface CustomerModel {
  id: string;
}
