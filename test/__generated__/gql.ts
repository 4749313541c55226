/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query BookId($id: ID!) {\n    book(id: $id) { id }\n  }\n": typeof types.BookIdDocument,
    "\n  query BooksPage($first: Int, $after: String) {\n    books(first: $first, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }\n  }\n": typeof types.BooksPageDocument,
    "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) { edges { node { id customersPurchased(first: 60) { edges { node { id } } } } } }\n    }\n  ": typeof types.ListingWithBuyersDocument,
    "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book { id purchaseCount hasExtras }\n    }\n  }\n": typeof types.RecordKeyedPurchaseDocument,
    "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book { customersPurchased(first: $first) { edges { node { id } } } }\n    }\n  }\n": typeof types.BuyAndListBuyersDocument,
    "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books outliers extraSalesDocuments\n      overflowPagesPerOutlier { max median p99 }\n      largestBooks { id purchaseCount hasExtras }\n      outlierThreshold extraSalesPageSize\n    }\n  }\n": typeof types.SalesStatsDocument,
    "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) { id }\n  }\n": typeof types.FactoryAddBookDocument,
    "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book { id purchaseCount hasExtras }\n    }\n  }\n": typeof types.FactoryRecordPurchaseDocument,
    "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": typeof types.FactoryCustomersPageDocument,
};
const documents: Documents = {
    "\n  query BookId($id: ID!) {\n    book(id: $id) { id }\n  }\n": types.BookIdDocument,
    "\n  query BooksPage($first: Int, $after: String) {\n    books(first: $first, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }\n  }\n": types.BooksPageDocument,
    "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) { edges { node { id customersPurchased(first: 60) { edges { node { id } } } } } }\n    }\n  ": types.ListingWithBuyersDocument,
    "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book { id purchaseCount hasExtras }\n    }\n  }\n": types.RecordKeyedPurchaseDocument,
    "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book { customersPurchased(first: $first) { edges { node { id } } } }\n    }\n  }\n": types.BuyAndListBuyersDocument,
    "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books outliers extraSalesDocuments\n      overflowPagesPerOutlier { max median p99 }\n      largestBooks { id purchaseCount hasExtras }\n      outlierThreshold extraSalesPageSize\n    }\n  }\n": types.SalesStatsDocument,
    "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) { id }\n  }\n": types.FactoryAddBookDocument,
    "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book { id purchaseCount hasExtras }\n    }\n  }\n": types.FactoryRecordPurchaseDocument,
    "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": types.FactoryCustomersPageDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BookId($id: ID!) {\n    book(id: $id) { id }\n  }\n"): (typeof documents)["\n  query BookId($id: ID!) {\n    book(id: $id) { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BooksPage($first: Int, $after: String) {\n    books(first: $first, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }\n  }\n"): (typeof documents)["\n  query BooksPage($first: Int, $after: String) {\n    books(first: $first, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) { edges { node { id customersPurchased(first: 60) { edges { node { id } } } } } }\n    }\n  "): (typeof documents)["\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) { edges { node { id customersPurchased(first: 60) { edges { node { id } } } } } }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book { id purchaseCount hasExtras }\n    }\n  }\n"): (typeof documents)["\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book { id purchaseCount hasExtras }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book { customersPurchased(first: $first) { edges { node { id } } } }\n    }\n  }\n"): (typeof documents)["\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book { customersPurchased(first: $first) { edges { node { id } } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books outliers extraSalesDocuments\n      overflowPagesPerOutlier { max median p99 }\n      largestBooks { id purchaseCount hasExtras }\n      outlierThreshold extraSalesPageSize\n    }\n  }\n"): (typeof documents)["\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books outliers extraSalesDocuments\n      overflowPagesPerOutlier { max median p99 }\n      largestBooks { id purchaseCount hasExtras }\n      outlierThreshold extraSalesPageSize\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) { id }\n  }\n"): (typeof documents)["\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book { id purchaseCount hasExtras }\n    }\n  }\n"): (typeof documents)["\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book { id purchaseCount hasExtras }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n"): (typeof documents)["\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;