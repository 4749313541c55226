import type { Db } from "mongodb";
import { parseBookId } from "../../src/sales/book-ids";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import { catalogCursor } from "../../src/graphql/schema/cursors";
import { catalogBrowseOf } from "../../src/sales/catalog";
import { extraSalesCollection, salesCollection, type BookId } from "../../src/sales/documents";
import { findBookViolations } from "../../src/maintenance/reconcile/scan";
import { TEST_SETTINGS, type TestApi } from "./api";
import type { OutlierSettings } from "../../src/config";
import { graphql } from "../__generated__";
import type { FactoryRecordPurchaseMutation } from "../__generated__/graphql";

/** Customer ids in the manual's style: user00, user01, … */
export function customers(count: number, from = 0, prefix = "user"): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(from + index).padStart(2, "0")}`);
}

let nextTitle = 0;

const ADD_BOOK_ID = graphql(`
  mutation FactoryAddBook($input: AddBookInput!) {
    addBook(input: $input) {
      id: databaseId
    }
  }
`);

export async function addBook(api: TestApi, input: { id?: string; title?: string; author?: string; year?: number } = {}): Promise<string> {
  nextTitle += 1;
  const result = await api.execute(ADD_BOOK_ID, { input: { title: `Book ${nextTitle}`, author: "An Author", ...input } });
  if (result.errors) throw new Error(`addBook failed: ${JSON.stringify(result.errors)}`);
  return result.data!.addBook.id;
}

export const RECORD_PURCHASE = graphql(`
  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {
      storedIn
      book {
        id: databaseId
        purchaseCount
        hasExtras
      }
    }
  }
`);

/** Records purchases one after another, failing on the first error. */
export async function recordPurchases(api: TestApi, bookId: string, customerIds: string[]): Promise<FactoryRecordPurchaseMutation[]> {
  const results: FactoryRecordPurchaseMutation[] = [];
  for (const customerId of customerIds) {
    const result = await api.execute(RECORD_PURCHASE, { bookId, customerId });
    if (result.errors) throw new Error(`recordPurchase failed: ${JSON.stringify(result.errors)}`);
    results.push(result.data!);
  }
  return results;
}

/** Writes a book with its purchases directly, through the bulk path, for tests about reading. */
export async function seedBook(db: Db, id: string, purchases: string[], settings: OutlierSettings = TEST_SETTINGS): Promise<void> {
  await insertBooksWithPurchases(
    db,
    [{ book: { id: parseBookId(id), title: `Seeded ${id}`, author: "A" }, customers: purchases }],
    settings,
  );
}

/** The cursor `Query.books` gives the book with this id in its default order (by id, no filter or search). */
export function idOrderCursor(id: BookId): string {
  return catalogCursor(catalogBrowseOf({ field: "ID", direction: "ASC" }), { _id: id, title: "", purchase_count: 0 });
}

const CUSTOMERS_PAGE = graphql(`
  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {
    book(id: $id) {
      customersPurchased(first: $first, after: $after) {
        totalCount
        ...BuyerPage
      }
    }
  }
`);

export async function customersPage(api: TestApi, id: string, first?: number | null, after?: string | null) {
  return api.execute(CUSTOMERS_PAGE, { id, first, after });
}

/** Every customer of a book, read page by page as a client would. */
export async function readAllCustomers(api: TestApi, id: string, pageSize: number): Promise<string[]> {
  const all: string[] = [];
  let after: string | null = null;
  for (;;) {
    const result = await customersPage(api, id, pageSize, after);
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    const connection = result.data!.book!.customersPurchased;
    all.push(...connection.edges.map((edge) => edge.node.id));
    if (!connection.pageInfo.hasNextPage) return all;
    after = connection.pageInfo.endCursor;
  }
}

/** What the database holds for one book, straight from the collections. */
export async function storedBook(db: Db, id: string) {
  const bookId = parseBookId(id);
  const book = await salesCollection(db).findOne({ _id: bookId });
  const pages = await extraSalesCollection(db)
    .find({ book_id: bookId }, { projection: { _id: 0 } })
    .sort({ page: 1 })
    .toArray();
  return { book, pages };
}

/**
 * The pattern's invariants for one book, as reconcile checks them (itself tested on broken data),
 * listed as messages: empty when all hold.
 */
export async function invariantViolations(db: Db, id: string, settings: OutlierSettings = TEST_SETTINGS): Promise<string[]> {
  if (!(await salesCollection(db).findOne({ _id: parseBookId(id) }))) return [`book ${id} is missing`];
  const violations = await findBookViolations(db, parseBookId(id), settings);
  return violations.map((violation) => `${violation.kind}: ${violation.message}`);
}

/** Every purchase of the book in stored order: embedded first, then the pages. */
export async function storedPurchases(db: Db, id: string): Promise<string[]> {
  const { book, pages } = await storedBook(db, id);
  return [...(book?.customers_purchased ?? []), ...pages.flatMap((page) => page.customers_purchased_extra)];
}
