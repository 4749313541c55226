import { ApolloClient, HttpLink, InMemoryCache } from "@apollo/client";

/**
 * One normalized cache for the whole page. Lists are shown a window at a time, so each window is cached
 * under its own arguments (Apollo's default) and nothing is merged into an ever-growing list.
 */
export function createStorefrontClient(): ApolloClient {
  return new ApolloClient({ link: new HttpLink({ uri: "/graphql" }), cache: new InMemoryCache() });
}
