import type { SalesDocument } from "../sales/documents";
import type { CustomersPage } from "../sales/customers";

/** What `Query.books` hands to the BookConnection resolvers: the page read, with the count left for when it is asked for. */
export interface BookConnectionModel {
  books: SalesDocument[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/** What `Book.customersPurchased` hands to the CustomerConnection resolvers. */
export interface CustomerConnectionModel extends CustomersPage {
  book: SalesDocument;
  hasPreviousPage: boolean;
}
