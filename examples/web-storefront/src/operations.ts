import { graphql } from "./__generated__";

export const CATALOG = graphql(`
  query StorefrontCatalog($first: Int!, $after: String) {
    books(first: $first, after: $after) {
      totalCount
      edges {
        cursor
        node {
          id
          title
          author
          purchaseCount
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const BOOK_PAGE = graphql(`
  query StorefrontBookPage($id: ID!, $buyers: Int!, $after: String) {
    book(id: $id) {
      id
      title
      author
      purchaseCount
      customersPurchased(first: $buyers, after: $after) {
        totalCount
        edges {
          cursor
          node {
            id
            databaseId
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
      alsoBought(first: 5) {
        sharedBuyers
        book {
          id
          title
        }
      }
    }
  }
`);

export const NEWEST_BUYERS = graphql(`
  query StorefrontNewestBuyers($id: ID!, $last: Int!) {
    book(id: $id) {
      id
      customersPurchased(last: $last) {
        edges {
          node {
            id
            databaseId
          }
        }
      }
    }
  }
`);

export const BUY = graphql(`
  mutation StorefrontBuy($bookId: ID!, $customerId: ID!, $purchaseId: ID!) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {
      storedIn
      replayed
      book {
        id
        purchaseCount
      }
    }
  }
`);
