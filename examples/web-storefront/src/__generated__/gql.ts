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
    "\n  query StorefrontShelf($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      edges {\n        node {\n          id\n          databaseId\n          title\n          author\n          year\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.StorefrontShelfDocument,
    "\n  query StorefrontBookPage($id: ID!) {\n    book(id: $id) {\n      id\n      databaseId\n      title\n      author\n      year\n      purchaseCount\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          databaseId\n          title\n          author\n        }\n      }\n    }\n  }\n": typeof types.StorefrontBookPageDocument,
    "\n  mutation ShopperBuy($bookId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, purchaseId: $purchaseId }) {\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n": typeof types.ShopperBuyDocument,
    "\n  query ShopperBooks($first: Int!, $after: String) {\n    viewer {\n      id\n      databaseId\n      booksPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            databaseId\n            title\n            author\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.ShopperBooksDocument,
    "\n  subscription StorefrontShelfSales($ids: [ID!]!) {\n    bookSales(ids: $ids) {\n      id\n      purchaseCount\n    }\n  }\n": typeof types.StorefrontShelfSalesDocument,
};
const documents: Documents = {
    "\n  query StorefrontShelf($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      edges {\n        node {\n          id\n          databaseId\n          title\n          author\n          year\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.StorefrontShelfDocument,
    "\n  query StorefrontBookPage($id: ID!) {\n    book(id: $id) {\n      id\n      databaseId\n      title\n      author\n      year\n      purchaseCount\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          databaseId\n          title\n          author\n        }\n      }\n    }\n  }\n": types.StorefrontBookPageDocument,
    "\n  mutation ShopperBuy($bookId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, purchaseId: $purchaseId }) {\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n": types.ShopperBuyDocument,
    "\n  query ShopperBooks($first: Int!, $after: String) {\n    viewer {\n      id\n      databaseId\n      booksPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            databaseId\n            title\n            author\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.ShopperBooksDocument,
    "\n  subscription StorefrontShelfSales($ids: [ID!]!) {\n    bookSales(ids: $ids) {\n      id\n      purchaseCount\n    }\n  }\n": types.StorefrontShelfSalesDocument,
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
export function graphql(source: "\n  query StorefrontShelf($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      edges {\n        node {\n          id\n          databaseId\n          title\n          author\n          year\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query StorefrontShelf($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      edges {\n        node {\n          id\n          databaseId\n          title\n          author\n          year\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StorefrontBookPage($id: ID!) {\n    book(id: $id) {\n      id\n      databaseId\n      title\n      author\n      year\n      purchaseCount\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          databaseId\n          title\n          author\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query StorefrontBookPage($id: ID!) {\n    book(id: $id) {\n      id\n      databaseId\n      title\n      author\n      year\n      purchaseCount\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          databaseId\n          title\n          author\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ShopperBuy($bookId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, purchaseId: $purchaseId }) {\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ShopperBuy($bookId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, purchaseId: $purchaseId }) {\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ShopperBooks($first: Int!, $after: String) {\n    viewer {\n      id\n      databaseId\n      booksPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            databaseId\n            title\n            author\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ShopperBooks($first: Int!, $after: String) {\n    viewer {\n      id\n      databaseId\n      booksPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id\n            databaseId\n            title\n            author\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription StorefrontShelfSales($ids: [ID!]!) {\n    bookSales(ids: $ids) {\n      id\n      purchaseCount\n    }\n  }\n"): (typeof documents)["\n  subscription StorefrontShelfSales($ids: [ID!]!) {\n    bookSales(ids: $ids) {\n      id\n      purchaseCount\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;