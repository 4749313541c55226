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
    "\n  query StorefrontCatalog($first: Int!, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          title\n          author\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.StorefrontCatalogDocument,
    "\n  query StorefrontBookPage($id: ID!, $buyers: Int!, $after: String) {\n    book(id: $id) {\n      id\n      title\n      author\n      purchaseCount\n      customersPurchased(first: $buyers, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            databaseId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          title\n        }\n      }\n    }\n  }\n": typeof types.StorefrontBookPageDocument,
    "\n  query StorefrontNewestBuyers($id: ID!, $last: Int!) {\n    book(id: $id) {\n      id\n      customersPurchased(last: $last) {\n        edges {\n          node {\n            id\n            databaseId\n          }\n        }\n      }\n    }\n  }\n": typeof types.StorefrontNewestBuyersDocument,
    "\n  mutation StorefrontBuy($bookId: ID!, $customerId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n": typeof types.StorefrontBuyDocument,
};
const documents: Documents = {
    "\n  query StorefrontCatalog($first: Int!, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          title\n          author\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.StorefrontCatalogDocument,
    "\n  query StorefrontBookPage($id: ID!, $buyers: Int!, $after: String) {\n    book(id: $id) {\n      id\n      title\n      author\n      purchaseCount\n      customersPurchased(first: $buyers, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            databaseId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          title\n        }\n      }\n    }\n  }\n": types.StorefrontBookPageDocument,
    "\n  query StorefrontNewestBuyers($id: ID!, $last: Int!) {\n    book(id: $id) {\n      id\n      customersPurchased(last: $last) {\n        edges {\n          node {\n            id\n            databaseId\n          }\n        }\n      }\n    }\n  }\n": types.StorefrontNewestBuyersDocument,
    "\n  mutation StorefrontBuy($bookId: ID!, $customerId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n": types.StorefrontBuyDocument,
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
export function graphql(source: "\n  query StorefrontCatalog($first: Int!, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          title\n          author\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query StorefrontCatalog($first: Int!, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          title\n          author\n          purchaseCount\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StorefrontBookPage($id: ID!, $buyers: Int!, $after: String) {\n    book(id: $id) {\n      id\n      title\n      author\n      purchaseCount\n      customersPurchased(first: $buyers, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            databaseId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          title\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query StorefrontBookPage($id: ID!, $buyers: Int!, $after: String) {\n    book(id: $id) {\n      id\n      title\n      author\n      purchaseCount\n      customersPurchased(first: $buyers, after: $after) {\n        totalCount\n        edges {\n          cursor\n          node {\n            id\n            databaseId\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n      alsoBought(first: 5) {\n        sharedBuyers\n        book {\n          id\n          title\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StorefrontNewestBuyers($id: ID!, $last: Int!) {\n    book(id: $id) {\n      id\n      customersPurchased(last: $last) {\n        edges {\n          node {\n            id\n            databaseId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query StorefrontNewestBuyers($id: ID!, $last: Int!) {\n    book(id: $id) {\n      id\n      customersPurchased(last: $last) {\n        edges {\n          node {\n            id\n            databaseId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StorefrontBuy($bookId: ID!, $customerId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation StorefrontBuy($bookId: ID!, $customerId: ID!, $purchaseId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id\n        purchaseCount\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;