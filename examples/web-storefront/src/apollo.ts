import { ApolloClient, HttpLink, InMemoryCache } from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import type { DocumentNode } from "graphql";

/**
 * The hash codegen gave the document (`persistedDocuments` in codegen.yml), as in the manifest the API holds:
 * the page names its operations by these hashes alone, and the API runs for the storefront's token only those.
 */
function trustedHash(document: DocumentNode): string {
  const hash = (document as DocumentNode & { __meta__?: { hash?: string } }).__meta__?.hash;
  if (hash === undefined) throw new Error("This operation is not a generated document: write it with graphql() and run npm run codegen");
  return hash.replace(/^sha256:/, "");
}

/**
 * One normalized cache for the whole page. Lists are shown a window at a time, so each window is cached
 * under its own arguments (Apollo's default) and nothing is merged into an ever-growing list.
 */
export function createStorefrontClient(): ApolloClient {
  // The first request sends the hash alone. An API without trusted documents (`npm start` without API_TOKENS) answers
  // PERSISTED_QUERY_NOT_FOUND once per operation and the link sends the document with it, registering it.
  const link = new PersistedQueryLink({ generateHash: trustedHash }).concat(new HttpLink({ uri: "/graphql" }));
  return new ApolloClient({ link, cache: new InMemoryCache() });
}
