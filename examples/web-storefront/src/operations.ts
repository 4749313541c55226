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

/**
 * The product page, the same for every visitor: the book and its count, and what its buyers also bought (counts of
 * shared buyers, no one's id). Who bought it is the back office's (back-office/operations.ts).
 */
export const BOOK_PAGE = graphql(`
  query StorefrontBookPage($id: ID!) {
    book(id: $id) {
      id
      databaseId
      title
      author
      year
      purchaseCount
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

/**
 * Operations named `Shopper…` or `BackOffice…` go to /shopper/graphql, with the signed-in shopper's own token
 * (src/apollo.ts); the rest to /graphql, with the storefront's.
 */
export const SIGNED_IN_OPERATION = /^(Shopper|BackOffice)/;

/** Buy as the signed-in shopper: no customer id is sent, the API takes the shopper's from the token. */
export const BUY = graphql(`
  mutation ShopperBuy($bookId: ID!, $purchaseId: ID!) {
    recordPurchase(input: { bookId: $bookId, purchaseId: $purchaseId }) {
      replayed
      book {
        id
        purchaseCount
      }
    }
  }
`);

/** My books: the signed-in shopper's own purchases, a window at a time, in the catalog's order. */
export const MY_BOOKS = graphql(`
  query ShopperBooks($first: Int!, $after: String) {
    viewer {
      id
      databaseId
      booksPurchased(first: $first, after: $after) {
        totalCount
        edges {
          node {
            id
            databaseId
            title
            author
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

/** A shelf's or a book page's counts, live: each book sent with its `id`, so the cache updates it wherever the page shows it. */
export const SHELF_SALES = graphql(`
  subscription StorefrontShelfSales($ids: [ID!]!) {
    bookSales(ids: $ids) {
      id
      purchaseCount
    }
  }
`);
