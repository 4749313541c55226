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
    "\n  query BookId($id: ID!) {\n    book(id: $id) {\n      id: databaseId\n    }\n  }\n": typeof types.BookIdDocument,
    "\n  query BestsellersPage($after: String) {\n    books(first: 3, after: $after, orderBy: { field: PURCHASE_COUNT, direction: DESC }) {\n      ...BookPage\n    }\n  }\n": typeof types.BestsellersPageDocument,
    "\n  query BooksWindow($first: Int, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      ...BookPage\n    }\n  }\n": typeof types.BooksWindowDocument,
    "\n  query WindowBothWays($author: String!, $id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    books(first: 10, filter: { author: $author }) {\n      edges {\n        node {\n          databaseId\n          customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n            totalCount\n            ...BuyerPage\n          }\n        }\n      }\n    }\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n": typeof types.WindowBothWaysDocument,
    "\n  query BrowseCatalog($first: Int, $after: String, $last: Int, $before: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      ...BookPage\n    }\n  }\n": typeof types.BrowseCatalogDocument,
    "query Buyers($after: String) {\n    book(id: \"3\") { id customersPurchased(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }\n  }": typeof types.BuyersDocument,
    "\n  query NewestBuyersCost($id: ID!) {\n    book(id: $id) {\n      customersPurchased(last: 20) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n": typeof types.NewestBuyersCostDocument,
    "\n  query DeepBuyersCost($id: ID!, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: 20, after: $after) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n": typeof types.DeepBuyersCostDocument,
    "\n  query BoughtCost($id: ID!) {\n    book(id: $id) {\n      purchasedBy(customerId: \"nobody\")\n    }\n  }\n": typeof types.BoughtCostDocument,
    "\n  query AlsoBoughtCost($id: ID!) {\n    book(id: $id) {\n      alsoBought {\n        sharedBuyers\n        book {\n          id: databaseId\n        }\n      }\n    }\n  }\n": typeof types.AlsoBoughtCostDocument,
    "\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id: databaseId\n      booksPurchased(first: $first, after: $after) {\n        ...BookPage\n      }\n    }\n  }\n": typeof types.PurchaseHistoryDocument,
    "\n        query PurchaseHistoryCount {\n          customer(id: \"alice\") {\n            booksPurchased(first: 0) {\n              totalCount\n            }\n          }\n        }\n      ": typeof types.PurchaseHistoryCountDocument,
    "\n    query BoughtAcrossListing($customerId: ID!) {\n      books(first: 10) {\n        edges {\n          node {\n            id: databaseId\n            purchasedBy(customerId: $customerId)\n          }\n        }\n      }\n    }\n  ": typeof types.BoughtAcrossListingDocument,
    "\n        query BoughtByTwo {\n          book(id: \"a\") {\n            alice: purchasedBy(customerId: \"alice\")\n            ivan: purchasedBy(customerId: \"ivan\")\n            nobody: purchasedBy(customerId: \"nobody\")\n          }\n        }\n      ": typeof types.BoughtByTwoDocument,
    "\n        query BoughtOneBook {\n          book(id: \"c\") {\n            purchasedBy(customerId: \"carol\")\n          }\n        }\n      ": typeof types.BoughtOneBookDocument,
    "\n    query AlsoBought($id: ID!, $first: Int) {\n      book(id: $id) {\n        alsoBought(first: $first) {\n          book {\n            id: databaseId\n            title\n          }\n          sharedBuyers\n        }\n      }\n    }\n  ": typeof types.AlsoBoughtDocument,
    "\n    query NodeById($id: ID!) {\n      node(id: $id) {\n        __typename\n        id\n        ... on Book {\n          databaseId\n          title\n        }\n        ... on Customer {\n          databaseId\n        }\n      }\n    }\n  ": typeof types.NodeByIdDocument,
    "\n    query BookByEitherId($id: ID!) {\n      book(id: $id) {\n        id\n        databaseId\n        globalId\n      }\n    }\n  ": typeof types.BookByEitherIdDocument,
    "\n        query NodesByIds($ids: [ID!]!) {\n          nodes(ids: $ids) {\n            ... on Book {\n              databaseId\n            }\n            ... on Customer {\n              databaseId\n            }\n          }\n        }\n      ": typeof types.NodesByIdsDocument,
    "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) {\n        edges {\n          node {\n            id: databaseId\n            customersPurchased(first: 60) {\n              edges {\n                node {\n                  id: databaseId\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  ": typeof types.ListingWithBuyersDocument,
    "\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        ...BuyerPage\n      }\n    }\n  }\n": typeof types.BuyersBothWaysDocument,
    "\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        ...BookPage\n      }\n    }\n  ": typeof types.CatalogBothWaysDocument,
    "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book {\n        customersPurchased(first: $first) {\n          edges {\n            node {\n              id: databaseId\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.BuyAndListBuyersDocument,
    "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n": typeof types.RecordKeyedPurchaseDocument,
    "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books\n      outliers\n      extraSalesDocuments\n      overflowPagesPerOutlier {\n        max\n        median\n        p99\n      }\n      largestBooks {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n      outlierThreshold\n      extraSalesPageSize\n    }\n  }\n": typeof types.SalesStatsDocument,
    "\n  mutation ShardTargetedKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n    }\n  }\n": typeof types.ShardTargetedKeyedPurchaseDocument,
    "\n  query ShardTargetedBook($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      title\n      purchaseCount\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n": typeof types.ShardTargetedBookDocument,
    "\n  mutation FaultedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n    }\n  }\n": typeof types.FaultedPurchaseDocument,
    "fragment PagePosition on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment BookPage on BookConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}\n\nfragment BuyerPage on CustomerConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}": typeof types.PagePositionFragmentDoc,
    "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) {\n      id: databaseId\n    }\n  }\n": typeof types.FactoryAddBookDocument,
    "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n": typeof types.FactoryRecordPurchaseDocument,
    "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n": typeof types.FactoryCustomersPageDocument,
};
const documents: Documents = {
    "\n  query BookId($id: ID!) {\n    book(id: $id) {\n      id: databaseId\n    }\n  }\n": types.BookIdDocument,
    "\n  query BestsellersPage($after: String) {\n    books(first: 3, after: $after, orderBy: { field: PURCHASE_COUNT, direction: DESC }) {\n      ...BookPage\n    }\n  }\n": types.BestsellersPageDocument,
    "\n  query BooksWindow($first: Int, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      ...BookPage\n    }\n  }\n": types.BooksWindowDocument,
    "\n  query WindowBothWays($author: String!, $id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    books(first: 10, filter: { author: $author }) {\n      edges {\n        node {\n          databaseId\n          customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n            totalCount\n            ...BuyerPage\n          }\n        }\n      }\n    }\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n": types.WindowBothWaysDocument,
    "\n  query BrowseCatalog($first: Int, $after: String, $last: Int, $before: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      ...BookPage\n    }\n  }\n": types.BrowseCatalogDocument,
    "query Buyers($after: String) {\n    book(id: \"3\") { id customersPurchased(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }\n  }": types.BuyersDocument,
    "\n  query NewestBuyersCost($id: ID!) {\n    book(id: $id) {\n      customersPurchased(last: 20) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n": types.NewestBuyersCostDocument,
    "\n  query DeepBuyersCost($id: ID!, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: 20, after: $after) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n": types.DeepBuyersCostDocument,
    "\n  query BoughtCost($id: ID!) {\n    book(id: $id) {\n      purchasedBy(customerId: \"nobody\")\n    }\n  }\n": types.BoughtCostDocument,
    "\n  query AlsoBoughtCost($id: ID!) {\n    book(id: $id) {\n      alsoBought {\n        sharedBuyers\n        book {\n          id: databaseId\n        }\n      }\n    }\n  }\n": types.AlsoBoughtCostDocument,
    "\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id: databaseId\n      booksPurchased(first: $first, after: $after) {\n        ...BookPage\n      }\n    }\n  }\n": types.PurchaseHistoryDocument,
    "\n        query PurchaseHistoryCount {\n          customer(id: \"alice\") {\n            booksPurchased(first: 0) {\n              totalCount\n            }\n          }\n        }\n      ": types.PurchaseHistoryCountDocument,
    "\n    query BoughtAcrossListing($customerId: ID!) {\n      books(first: 10) {\n        edges {\n          node {\n            id: databaseId\n            purchasedBy(customerId: $customerId)\n          }\n        }\n      }\n    }\n  ": types.BoughtAcrossListingDocument,
    "\n        query BoughtByTwo {\n          book(id: \"a\") {\n            alice: purchasedBy(customerId: \"alice\")\n            ivan: purchasedBy(customerId: \"ivan\")\n            nobody: purchasedBy(customerId: \"nobody\")\n          }\n        }\n      ": types.BoughtByTwoDocument,
    "\n        query BoughtOneBook {\n          book(id: \"c\") {\n            purchasedBy(customerId: \"carol\")\n          }\n        }\n      ": types.BoughtOneBookDocument,
    "\n    query AlsoBought($id: ID!, $first: Int) {\n      book(id: $id) {\n        alsoBought(first: $first) {\n          book {\n            id: databaseId\n            title\n          }\n          sharedBuyers\n        }\n      }\n    }\n  ": types.AlsoBoughtDocument,
    "\n    query NodeById($id: ID!) {\n      node(id: $id) {\n        __typename\n        id\n        ... on Book {\n          databaseId\n          title\n        }\n        ... on Customer {\n          databaseId\n        }\n      }\n    }\n  ": types.NodeByIdDocument,
    "\n    query BookByEitherId($id: ID!) {\n      book(id: $id) {\n        id\n        databaseId\n        globalId\n      }\n    }\n  ": types.BookByEitherIdDocument,
    "\n        query NodesByIds($ids: [ID!]!) {\n          nodes(ids: $ids) {\n            ... on Book {\n              databaseId\n            }\n            ... on Customer {\n              databaseId\n            }\n          }\n        }\n      ": types.NodesByIdsDocument,
    "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) {\n        edges {\n          node {\n            id: databaseId\n            customersPurchased(first: 60) {\n              edges {\n                node {\n                  id: databaseId\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  ": types.ListingWithBuyersDocument,
    "\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        ...BuyerPage\n      }\n    }\n  }\n": types.BuyersBothWaysDocument,
    "\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        ...BookPage\n      }\n    }\n  ": types.CatalogBothWaysDocument,
    "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book {\n        customersPurchased(first: $first) {\n          edges {\n            node {\n              id: databaseId\n            }\n          }\n        }\n      }\n    }\n  }\n": types.BuyAndListBuyersDocument,
    "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n": types.RecordKeyedPurchaseDocument,
    "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books\n      outliers\n      extraSalesDocuments\n      overflowPagesPerOutlier {\n        max\n        median\n        p99\n      }\n      largestBooks {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n      outlierThreshold\n      extraSalesPageSize\n    }\n  }\n": types.SalesStatsDocument,
    "\n  mutation ShardTargetedKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n    }\n  }\n": types.ShardTargetedKeyedPurchaseDocument,
    "\n  query ShardTargetedBook($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      title\n      purchaseCount\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n": types.ShardTargetedBookDocument,
    "\n  mutation FaultedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n    }\n  }\n": types.FaultedPurchaseDocument,
    "fragment PagePosition on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment BookPage on BookConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}\n\nfragment BuyerPage on CustomerConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}": types.PagePositionFragmentDoc,
    "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) {\n      id: databaseId\n    }\n  }\n": types.FactoryAddBookDocument,
    "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n": types.FactoryRecordPurchaseDocument,
    "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n": types.FactoryCustomersPageDocument,
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
export function graphql(source: "\n  query BookId($id: ID!) {\n    book(id: $id) {\n      id: databaseId\n    }\n  }\n"): (typeof documents)["\n  query BookId($id: ID!) {\n    book(id: $id) {\n      id: databaseId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BestsellersPage($after: String) {\n    books(first: 3, after: $after, orderBy: { field: PURCHASE_COUNT, direction: DESC }) {\n      ...BookPage\n    }\n  }\n"): (typeof documents)["\n  query BestsellersPage($after: String) {\n    books(first: 3, after: $after, orderBy: { field: PURCHASE_COUNT, direction: DESC }) {\n      ...BookPage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BooksWindow($first: Int, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      ...BookPage\n    }\n  }\n"): (typeof documents)["\n  query BooksWindow($first: Int, $after: String) {\n    books(first: $first, after: $after) {\n      totalCount\n      ...BookPage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WindowBothWays($author: String!, $id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    books(first: 10, filter: { author: $author }) {\n      edges {\n        node {\n          databaseId\n          customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n            totalCount\n            ...BuyerPage\n          }\n        }\n      }\n    }\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n"): (typeof documents)["\n  query WindowBothWays($author: String!, $id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    books(first: 10, filter: { author: $author }) {\n      edges {\n        node {\n          databaseId\n          customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n            totalCount\n            ...BuyerPage\n          }\n        }\n      }\n    }\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BrowseCatalog($first: Int, $after: String, $last: Int, $before: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      ...BookPage\n    }\n  }\n"): (typeof documents)["\n  query BrowseCatalog($first: Int, $after: String, $last: Int, $before: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {\n    books(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter, search: $search) {\n      totalCount\n      ...BookPage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Buyers($after: String) {\n    book(id: \"3\") { id customersPurchased(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }\n  }"): (typeof documents)["query Buyers($after: String) {\n    book(id: \"3\") { id customersPurchased(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }\n  }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NewestBuyersCost($id: ID!) {\n    book(id: $id) {\n      customersPurchased(last: 20) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query NewestBuyersCost($id: ID!) {\n    book(id: $id) {\n      customersPurchased(last: 20) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeepBuyersCost($id: ID!, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: 20, after: $after) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query DeepBuyersCost($id: ID!, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: 20, after: $after) {\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BoughtCost($id: ID!) {\n    book(id: $id) {\n      purchasedBy(customerId: \"nobody\")\n    }\n  }\n"): (typeof documents)["\n  query BoughtCost($id: ID!) {\n    book(id: $id) {\n      purchasedBy(customerId: \"nobody\")\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AlsoBoughtCost($id: ID!) {\n    book(id: $id) {\n      alsoBought {\n        sharedBuyers\n        book {\n          id: databaseId\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AlsoBoughtCost($id: ID!) {\n    book(id: $id) {\n      alsoBought {\n        sharedBuyers\n        book {\n          id: databaseId\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id: databaseId\n      booksPurchased(first: $first, after: $after) {\n        ...BookPage\n      }\n    }\n  }\n"): (typeof documents)["\n  query PurchaseHistory($id: ID!, $first: Int, $after: String) {\n    customer(id: $id) {\n      id: databaseId\n      booksPurchased(first: $first, after: $after) {\n        ...BookPage\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n        query PurchaseHistoryCount {\n          customer(id: \"alice\") {\n            booksPurchased(first: 0) {\n              totalCount\n            }\n          }\n        }\n      "): (typeof documents)["\n        query PurchaseHistoryCount {\n          customer(id: \"alice\") {\n            booksPurchased(first: 0) {\n              totalCount\n            }\n          }\n        }\n      "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query BoughtAcrossListing($customerId: ID!) {\n      books(first: 10) {\n        edges {\n          node {\n            id: databaseId\n            purchasedBy(customerId: $customerId)\n          }\n        }\n      }\n    }\n  "): (typeof documents)["\n    query BoughtAcrossListing($customerId: ID!) {\n      books(first: 10) {\n        edges {\n          node {\n            id: databaseId\n            purchasedBy(customerId: $customerId)\n          }\n        }\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n        query BoughtByTwo {\n          book(id: \"a\") {\n            alice: purchasedBy(customerId: \"alice\")\n            ivan: purchasedBy(customerId: \"ivan\")\n            nobody: purchasedBy(customerId: \"nobody\")\n          }\n        }\n      "): (typeof documents)["\n        query BoughtByTwo {\n          book(id: \"a\") {\n            alice: purchasedBy(customerId: \"alice\")\n            ivan: purchasedBy(customerId: \"ivan\")\n            nobody: purchasedBy(customerId: \"nobody\")\n          }\n        }\n      "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n        query BoughtOneBook {\n          book(id: \"c\") {\n            purchasedBy(customerId: \"carol\")\n          }\n        }\n      "): (typeof documents)["\n        query BoughtOneBook {\n          book(id: \"c\") {\n            purchasedBy(customerId: \"carol\")\n          }\n        }\n      "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query AlsoBought($id: ID!, $first: Int) {\n      book(id: $id) {\n        alsoBought(first: $first) {\n          book {\n            id: databaseId\n            title\n          }\n          sharedBuyers\n        }\n      }\n    }\n  "): (typeof documents)["\n    query AlsoBought($id: ID!, $first: Int) {\n      book(id: $id) {\n        alsoBought(first: $first) {\n          book {\n            id: databaseId\n            title\n          }\n          sharedBuyers\n        }\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query NodeById($id: ID!) {\n      node(id: $id) {\n        __typename\n        id\n        ... on Book {\n          databaseId\n          title\n        }\n        ... on Customer {\n          databaseId\n        }\n      }\n    }\n  "): (typeof documents)["\n    query NodeById($id: ID!) {\n      node(id: $id) {\n        __typename\n        id\n        ... on Book {\n          databaseId\n          title\n        }\n        ... on Customer {\n          databaseId\n        }\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query BookByEitherId($id: ID!) {\n      book(id: $id) {\n        id\n        databaseId\n        globalId\n      }\n    }\n  "): (typeof documents)["\n    query BookByEitherId($id: ID!) {\n      book(id: $id) {\n        id\n        databaseId\n        globalId\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n        query NodesByIds($ids: [ID!]!) {\n          nodes(ids: $ids) {\n            ... on Book {\n              databaseId\n            }\n            ... on Customer {\n              databaseId\n            }\n          }\n        }\n      "): (typeof documents)["\n        query NodesByIds($ids: [ID!]!) {\n          nodes(ids: $ids) {\n            ... on Book {\n              databaseId\n            }\n            ... on Customer {\n              databaseId\n            }\n          }\n        }\n      "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) {\n        edges {\n          node {\n            id: databaseId\n            customersPurchased(first: 60) {\n              edges {\n                node {\n                  id: databaseId\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  "): (typeof documents)["\n    query ListingWithBuyers($first: Int!) {\n      books(first: $first) {\n        edges {\n          node {\n            id: databaseId\n            customersPurchased(first: 60) {\n              edges {\n                node {\n                  id: databaseId\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        ...BuyerPage\n      }\n    }\n  }\n"): (typeof documents)["\n  query BuyersBothWays($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after, last: $last, before: $before) {\n        ...BuyerPage\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        ...BookPage\n      }\n    }\n  "): (typeof documents)["\n    query CatalogBothWays($first: Int, $after: String, $last: Int, $before: String) {\n      books(first: $first, after: $after, last: $last, before: $before) {\n        ...BookPage\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book {\n        customersPurchased(first: $first) {\n          edges {\n            node {\n              id: databaseId\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      book {\n        customersPurchased(first: $first) {\n          edges {\n            node {\n              id: databaseId\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books\n      outliers\n      extraSalesDocuments\n      overflowPagesPerOutlier {\n        max\n        median\n        p99\n      }\n      largestBooks {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n      outlierThreshold\n      extraSalesPageSize\n    }\n  }\n"): (typeof documents)["\n  query SalesStats($top: Int) {\n    salesStats(top: $top) {\n      books\n      outliers\n      extraSalesDocuments\n      overflowPagesPerOutlier {\n        max\n        median\n        p99\n      }\n      largestBooks {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n      outlierThreshold\n      extraSalesPageSize\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ShardTargetedKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n    }\n  }\n"): (typeof documents)["\n  mutation ShardTargetedKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ShardTargetedBook($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      title\n      purchaseCount\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ShardTargetedBook($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      title\n      purchaseCount\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        edges {\n          node {\n            id: databaseId\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FaultedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n    }\n  }\n"): (typeof documents)["\n  mutation FaultedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {\n      storedIn\n      replayed\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment PagePosition on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment BookPage on BookConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}\n\nfragment BuyerPage on CustomerConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}"): (typeof documents)["fragment PagePosition on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment BookPage on BookConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}\n\nfragment BuyerPage on CustomerConnection {\n  edges {\n    cursor\n    node {\n      id: databaseId\n    }\n  }\n  pageInfo {\n    ...PagePosition\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) {\n      id: databaseId\n    }\n  }\n"): (typeof documents)["\n  mutation FactoryAddBook($input: AddBookInput!) {\n    addBook(input: $input) {\n      id: databaseId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation FactoryRecordPurchase($bookId: ID!, $customerId: ID!) {\n    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {\n      storedIn\n      book {\n        id: databaseId\n        purchaseCount\n        hasExtras\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n"): (typeof documents)["\n  query FactoryCustomersPage($id: ID!, $first: Int, $after: String) {\n    book(id: $id) {\n      customersPurchased(first: $first, after: $after) {\n        totalCount\n        ...BuyerPage\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;