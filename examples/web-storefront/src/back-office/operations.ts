import { graphql } from "./__generated__";

/**
 * A book's buyers, newest first, a window at a time: personal data, for the back office (`purchases:read`). Written
 * apart from the storefront's operations and generated into a folder of its own (codegen.yml), so that it is not in
 * the storefront's trusted documents: the storefront's token, which every visitor borrows through the proxy, cannot
 * run it whatever its scopes. It goes to /shopper/graphql with the signed-in caller's own token (src/apollo.ts).
 */
export const BOOK_BUYERS = graphql(`
  query BackOfficeBookBuyers($id: ID!, $buyers: Int!, $before: String) {
    book(id: $id) {
      id
      databaseId
      title
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
          hasPreviousPage
          startCursor
        }
      }
    }
  }
`);
