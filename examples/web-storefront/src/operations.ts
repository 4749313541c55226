import { graphql } from "./__generated__";

/** A window of books: the bestsellers, a search or an author's books, after a cursor. */
export const SHELF = graphql(`
  query StorefrontShelf($first: Int!, $after: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {
    books(first: $first, after: $after, orderBy: $orderBy, filter: $filter, search: $search) {
      totalCount
      edges {
        node {
          id
          databaseId
          title
          author
          year
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

/** The product page: the book and its count, a window of its buyers counted from the newest, and what its buyers also bought. */
export const BOOK_PAGE = graphql(`
  query StorefrontBookPage($id: ID!, $buyers: Int!, $before: String) {
    book(id: $id) {
      id
      databaseId
      title
      author
      year
      purchaseCount
      customersPurchased(last: $buyers, before: $before) {
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
          hasPreviousPage
          startCursor
          endCursor
        }
      }
      alsoBought(first: 5) {
        sharedBuyers
        book {
          id
          databaseId
          title
          author
        }
      }
    }
  }
`);

/** The payload leaves the count alone: the product page reads the book again, so its count and its buyers change together. */
export const BUY = graphql(`
  mutation StorefrontBuy($bookId: ID!, $customerId: ID!, $purchaseId: ID!) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {
      storedIn
      replayed
      book {
        id
      }
    }
  }
`);

/**
 * The product page's live half, over the WebSocket: each new buyer of the book with the count once it is counted, so
 * that the count and the newest buyers change together, as they do after a purchase made on this page.
 */
export const BOOK_BUYERS_LIVE = graphql(`
  subscription StorefrontBookBuyers($bookId: ID!) {
    newBuyers(bookId: $bookId) {
      missedBefore
      purchaseCount
      edge {
        cursor
        node {
          id
          databaseId
        }
      }
    }
  }
`);

/** A shelf's counts, live: each book sent with its `id`, so the cache updates it wherever the page shows it. */
export const SHELF_SALES = graphql(`
  subscription StorefrontShelfSales($ids: [ID!]!) {
    bookSales(ids: $ids) {
      id
      purchaseCount
    }
  }
`);
