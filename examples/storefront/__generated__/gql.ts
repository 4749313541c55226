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
    "query BookBuyers($id: ID!, $first: Int!, $after: String) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    purchaseCount\n    hasExtras\n    customersPurchased(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          databaseId\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}": typeof types.BookBuyersDocument,
    "query BrowseBooks($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n  books(\n    first: $first\n    after: $after\n    orderBy: $orderBy\n    filter: $filter\n    search: $search\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.BrowseBooksDocument,
    "query ListBooks($first: Int!, $after: String, $buyers: Int!) {\n  books(first: $first, after: $after) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n        customersPurchased(first: $buyers) {\n          edges {\n            node {\n              databaseId\n            }\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.ListBooksDocument,
    "query ProductPage($id: ID!, $recentBuyers: Int!, $recommendations: Int!) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    author\n    year\n    purchaseCount\n    customersPurchased(last: $recentBuyers) {\n      edges {\n        node {\n          databaseId\n        }\n      }\n    }\n    alsoBought(first: $recommendations) {\n      sharedBuyers\n      book {\n        id\n        databaseId\n        title\n        author\n      }\n    }\n  }\n}": typeof types.ProductPageDocument,
    "mutation RecordPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n  recordPurchase(\n    input: {bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId}\n  ) {\n    storedIn\n    replayed\n    book {\n      id\n      databaseId\n      purchaseCount\n      hasExtras\n    }\n  }\n}": typeof types.RecordPurchaseDocument,
};
const documents: Documents = {
    "query BookBuyers($id: ID!, $first: Int!, $after: String) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    purchaseCount\n    hasExtras\n    customersPurchased(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          databaseId\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}": types.BookBuyersDocument,
    "query BrowseBooks($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n  books(\n    first: $first\n    after: $after\n    orderBy: $orderBy\n    filter: $filter\n    search: $search\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.BrowseBooksDocument,
    "query ListBooks($first: Int!, $after: String, $buyers: Int!) {\n  books(first: $first, after: $after) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n        customersPurchased(first: $buyers) {\n          edges {\n            node {\n              databaseId\n            }\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.ListBooksDocument,
    "query ProductPage($id: ID!, $recentBuyers: Int!, $recommendations: Int!) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    author\n    year\n    purchaseCount\n    customersPurchased(last: $recentBuyers) {\n      edges {\n        node {\n          databaseId\n        }\n      }\n    }\n    alsoBought(first: $recommendations) {\n      sharedBuyers\n      book {\n        id\n        databaseId\n        title\n        author\n      }\n    }\n  }\n}": types.ProductPageDocument,
    "mutation RecordPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n  recordPurchase(\n    input: {bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId}\n  ) {\n    storedIn\n    replayed\n    book {\n      id\n      databaseId\n      purchaseCount\n      hasExtras\n    }\n  }\n}": types.RecordPurchaseDocument,
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
export function graphql(source: "query BookBuyers($id: ID!, $first: Int!, $after: String) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    purchaseCount\n    hasExtras\n    customersPurchased(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          databaseId\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}"): (typeof documents)["query BookBuyers($id: ID!, $first: Int!, $after: String) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    purchaseCount\n    hasExtras\n    customersPurchased(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          databaseId\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BrowseBooks($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n  books(\n    first: $first\n    after: $after\n    orderBy: $orderBy\n    filter: $filter\n    search: $search\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query BrowseBooks($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n  books(\n    first: $first\n    after: $after\n    orderBy: $orderBy\n    filter: $filter\n    search: $search\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ListBooks($first: Int!, $after: String, $buyers: Int!) {\n  books(first: $first, after: $after) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n        customersPurchased(first: $buyers) {\n          edges {\n            node {\n              databaseId\n            }\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query ListBooks($first: Int!, $after: String, $buyers: Int!) {\n  books(first: $first, after: $after) {\n    totalCount\n    edges {\n      cursor\n      node {\n        id\n        databaseId\n        title\n        author\n        year\n        purchaseCount\n        customersPurchased(first: $buyers) {\n          edges {\n            node {\n              databaseId\n            }\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ProductPage($id: ID!, $recentBuyers: Int!, $recommendations: Int!) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    author\n    year\n    purchaseCount\n    customersPurchased(last: $recentBuyers) {\n      edges {\n        node {\n          databaseId\n        }\n      }\n    }\n    alsoBought(first: $recommendations) {\n      sharedBuyers\n      book {\n        id\n        databaseId\n        title\n        author\n      }\n    }\n  }\n}"): (typeof documents)["query ProductPage($id: ID!, $recentBuyers: Int!, $recommendations: Int!) {\n  book(id: $id) {\n    id\n    databaseId\n    title\n    author\n    year\n    purchaseCount\n    customersPurchased(last: $recentBuyers) {\n      edges {\n        node {\n          databaseId\n        }\n      }\n    }\n    alsoBought(first: $recommendations) {\n      sharedBuyers\n      book {\n        id\n        databaseId\n        title\n        author\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RecordPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n  recordPurchase(\n    input: {bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId}\n  ) {\n    storedIn\n    replayed\n    book {\n      id\n      databaseId\n      purchaseCount\n      hasExtras\n    }\n  }\n}"): (typeof documents)["mutation RecordPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n  recordPurchase(\n    input: {bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId}\n  ) {\n    storedIn\n    replayed\n    book {\n      id\n      databaseId\n      purchaseCount\n      hasExtras\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;