import { ApolloClient, HttpLink, InMemoryCache } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";

/**
 * One normalized cache for the whole page: a purchase's payload (`book { id purchaseCount }`) updates the
 * count wherever the book is shown, without a refetch. Both lists page with Relay cursors and grow as
 * `fetchMore` brings the next window.
 */
export function createStorefrontClient(): ApolloClient {
  return new ApolloClient({
    link: new HttpLink({ uri: "/graphql" }),
    cache: new InMemoryCache({
      typePolicies: {
        Query: { fields: { books: relayStylePagination() } },
        Book: { fields: { customersPurchased: relayStylePagination() } },
      },
    }),
  });
}
