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
    "query NewestBuyersCost($id: ID!) { book(id: $id) { customersPurchased(last: 20) { edges { node { id } } } } }": typeof types.NewestBuyersCostDocument,
    "query DeepBuyersCost($id: ID!, $after: String) { book(id: $id) { customersPurchased(first: 20, after: $after) { edges { node { id } } } } }": typeof types.DeepBuyersCostDocument,
    "query BoughtCost($id: ID!) { book(id: $id) { purchasedBy(customerId: \"nobody\") } }": typeof types.BoughtCostDocument,
    "query AlsoBoughtCost($id: ID!) { book(id: $id) { alsoBought { sharedBuyers book { id } } } }": typeof types.AlsoBoughtCostDocument,
    "\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id\n      booksPurchased(first: $first, after: $after) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage endCursor }\n      }\n    }\n  }\n": typeof types.PurchaseHistoryDocument,
    "query PurchaseHistoryCount { customer(id: \"alice\") { booksPurchased(first: 0) { totalCount } } }": typeof types.PurchaseHistoryCountDocument,
    "query BoughtAcrossListing($customerId: ID!) { books(first: 10) { edges { node { id purchasedBy(customerId: $customerId) } } } }": typeof types.BoughtAcrossListingDocument,
    "query BoughtByTwo { book(id: \"a\") { alice: purchasedBy(customerId: \"alice\") ivan: purchasedBy(customerId: \"ivan\") nobody: purchasedBy(customerId: \"nobody\") } }": typeof types.BoughtByTwoDocument,
    "query BoughtOneBook { book(id: \"c\") { purchasedBy(customerId: \"carol\") } }": typeof types.BoughtOneBookDocument,
    "query AlsoBought($id: ID!, $first: Int) { book(id: $id) { alsoBought(first: $first) { book { id title } sharedBuyers } } }": typeof types.AlsoBoughtDocument,
    "query NodeById($id: ID!) { node(id: $id) { __typename globalId ... on Book { id title } ... on Customer { id } } }": typeof types.NodeByIdDocument,
    "query BookGlobalId { book(id: \"2\") { id globalId } }": typeof types.BookGlobalIdDocument,
    "query NodesByIds($ids: [ID!]!) { nodes(ids: $ids) { ... on Book { id } ... on Customer { id } } }": typeof types.NodesByIdsDocument,
    "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) { edges { node { id customersPurchased(first: 60) { edges { node { id } } } } } }\n    }\n  ": typeof types.ListingWithBuyersDocument,
    "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book { id purchaseCount hasExtras }\n    }\n  }\n": typeof types.RecordKeyedPurchaseDocument,
    "\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": typeof types.BuyersBothWaysDocument,
    "\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        edges { node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  ": typeof types.CatalogBothWaysDocument,
    "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book { customersPurchased(first: $first) { edges { node { id } } } }\n    }\n  }\n": typeof types.BuyAndListBuyersDocument,
    "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books outliers extraSalesDocuments\n      overflowPagesPerOutlier { max median p99 }\n      largestBooks { id purchaseCount hasExtras }\n      outlierThreshold extraSalesPageSize\n    }\n  }\n": typeof types.SalesStatsDocument,
    "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) { id }\n  }\n": typeof types.FactoryAddBookDocument,
    "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book { id purchaseCount hasExtras }\n    }\n  }\n": typeof types.FactoryRecordPurchaseDocument,
    "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": typeof types.FactoryCustomersPageDocument,
};
const documents: Documents = {
    "\n  query BookId($id: ID!) {\n    book(id: $id) { id }\n  }\n": types.BookIdDocument,
    "\n  query BooksPage($first: Int, $after: String) {\n    books(first: $first, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }\n  }\n": types.BooksPageDocument,
    "query NewestBuyersCost($id: ID!) { book(id: $id) { customersPurchased(last: 20) { edges { node { id } } } } }": types.NewestBuyersCostDocument,
    "query DeepBuyersCost($id: ID!, $after: String) { book(id: $id) { customersPurchased(first: 20, after: $after) { edges { node { id } } } } }": types.DeepBuyersCostDocument,
    "query BoughtCost($id: ID!) { book(id: $id) { purchasedBy(customerId: \"nobody\") } }": types.BoughtCostDocument,
    "query AlsoBoughtCost($id: ID!) { book(id: $id) { alsoBought { sharedBuyers book { id } } } }": types.AlsoBoughtCostDocument,
    "\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id\n      booksPurchased(first: $first, after: $after) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage endCursor }\n      }\n    }\n  }\n": types.PurchaseHistoryDocument,
    "query PurchaseHistoryCount { customer(id: \"alice\") { booksPurchased(first: 0) { totalCount } } }": types.PurchaseHistoryCountDocument,
    "query BoughtAcrossListing($customerId: ID!) { books(first: 10) { edges { node { id purchasedBy(customerId: $customerId) } } } }": types.BoughtAcrossListingDocument,
    "query BoughtByTwo { book(id: \"a\") { alice: purchasedBy(customerId: \"alice\") ivan: purchasedBy(customerId: \"ivan\") nobody: purchasedBy(customerId: \"nobody\") } }": types.BoughtByTwoDocument,
    "query BoughtOneBook { book(id: \"c\") { purchasedBy(customerId: \"carol\") } }": types.BoughtOneBookDocument,
    "query AlsoBought($id: ID!, $first: Int) { book(id: $id) { alsoBought(first: $first) { book { id title } sharedBuyers } } }": types.AlsoBoughtDocument,
    "query NodeById($id: ID!) { node(id: $id) { __typename globalId ... on Book { id title } ... on Customer { id } } }": types.NodeByIdDocument,
    "query BookGlobalId { book(id: \"2\") { id globalId } }": types.BookGlobalIdDocument,
    "query NodesByIds($ids: [ID!]!) { nodes(ids: $ids) { ... on Book { id } ... on Customer { id } } }": types.NodesByIdsDocument,
    "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) { edges { node { id customersPurchased(first: 60) { edges { node { id } } } } } }\n    }\n  ": types.ListingWithBuyersDocument,
    "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book { id purchaseCount hasExtras }\n    }\n  }\n": types.RecordKeyedPurchaseDocument,
    "\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n": types.BuyersBothWaysDocument,
    "\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        edges { node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  ": types.CatalogBothWaysDocument,
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
export function graphql(source: "query NewestBuyersCost($id: ID!) { book(id: $id) { customersPurchased(last: 20) { edges { node { id } } } } }"): (typeof documents)["query NewestBuyersCost($id: ID!) { book(id: $id) { customersPurchased(last: 20) { edges { node { id } } } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query DeepBuyersCost($id: ID!, $after: String) { book(id: $id) { customersPurchased(first: 20, after: $after) { edges { node { id } } } } }"): (typeof documents)["query DeepBuyersCost($id: ID!, $after: String) { book(id: $id) { customersPurchased(first: 20, after: $after) { edges { node { id } } } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BoughtCost($id: ID!) { book(id: $id) { purchasedBy(customerId: \"nobody\") } }"): (typeof documents)["query BoughtCost($id: ID!) { book(id: $id) { purchasedBy(customerId: \"nobody\") } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query AlsoBoughtCost($id: ID!) { book(id: $id) { alsoBought { sharedBuyers book { id } } } }"): (typeof documents)["query AlsoBoughtCost($id: ID!) { book(id: $id) { alsoBought { sharedBuyers book { id } } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id\n      booksPurchased(first: $first, after: $after) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage endCursor }\n      }\n    }\n  }\n"): (typeof documents)["\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id\n      booksPurchased(first: $first, after: $after) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage endCursor }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query PurchaseHistoryCount { customer(id: \"alice\") { booksPurchased(first: 0) { totalCount } } }"): (typeof documents)["query PurchaseHistoryCount { customer(id: \"alice\") { booksPurchased(first: 0) { totalCount } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BoughtAcrossListing($customerId: ID!) { books(first: 10) { edges { node { id purchasedBy(customerId: $customerId) } } } }"): (typeof documents)["query BoughtAcrossListing($customerId: ID!) { books(first: 10) { edges { node { id purchasedBy(customerId: $customerId) } } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BoughtByTwo { book(id: \"a\") { alice: purchasedBy(customerId: \"alice\") ivan: purchasedBy(customerId: \"ivan\") nobody: purchasedBy(customerId: \"nobody\") } }"): (typeof documents)["query BoughtByTwo { book(id: \"a\") { alice: purchasedBy(customerId: \"alice\") ivan: purchasedBy(customerId: \"ivan\") nobody: purchasedBy(customerId: \"nobody\") } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BoughtOneBook { book(id: \"c\") { purchasedBy(customerId: \"carol\") } }"): (typeof documents)["query BoughtOneBook { book(id: \"c\") { purchasedBy(customerId: \"carol\") } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query AlsoBought($id: ID!, $first: Int) { book(id: $id) { alsoBought(first: $first) { book { id title } sharedBuyers } } }"): (typeof documents)["query AlsoBought($id: ID!, $first: Int) { book(id: $id) { alsoBought(first: $first) { book { id title } sharedBuyers } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query NodeById($id: ID!) { node(id: $id) { __typename globalId ... on Book { id title } ... on Customer { id } } }"): (typeof documents)["query NodeById($id: ID!) { node(id: $id) { __typename globalId ... on Book { id title } ... on Customer { id } } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BookGlobalId { book(id: \"2\") { id globalId } }"): (typeof documents)["query BookGlobalId { book(id: \"2\") { id globalId } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query NodesByIds($ids: [ID!]!) { nodes(ids: $ids) { ... on Book { id } ... on Customer { id } } }"): (typeof documents)["query NodesByIds($ids: [ID!]!) { nodes(ids: $ids) { ... on Book { id } ... on Customer { id } } }"];
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
export function graphql(source: "\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n"): (typeof documents)["\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        edges { cursor node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        edges { node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  "): (typeof documents)["\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        edges { node { id } }\n        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }\n      }\n    }\n  "];
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