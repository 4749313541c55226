import { ApolloClient, HttpLink, InMemoryCache, split } from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { getMainDefinition } from "@apollo/client/utilities";
import type { DocumentNode } from "graphql";
import { createClient } from "graphql-ws";

/**
 * The hash codegen gave the document (`persistedDocuments` in codegen.yml), as in the manifest the API holds:
 * the page names its operations by these hashes alone, and the API runs for the storefront's token only those.
 */
function trustedHash(document: DocumentNode): string {
  const hash = (document as DocumentNode & { __meta__?: { hash?: string } }).__meta__?.hash;
  if (hash === undefined) throw new Error("This operation is not a generated document: write it with graphql() and run npm run codegen");
  return hash.replace(/^sha256:/, "");
}

const isSubscription = ({ query }: { query: DocumentNode }) => {
  const definition = getMainDefinition(query);
  return definition.kind === "OperationDefinition" && definition.operation === "subscription";
};

/**
 * One normalized cache for the whole page. Lists are shown a window at a time, so each window is cached
 * under its own arguments (Apollo's default) and nothing is merged into an ever-growing list.
 *
 * Subscriptions go over a WebSocket to the page's own origin, which the same proxy passes to the API with the same
 * token (vite.config.ts); the rest over HTTP. Both name their operation by hash: the API runs only the manifest's.
 */
export function createStorefrontClient(): ApolloClient {
  // The first request sends the hash alone. An API without trusted documents (`npm start` without API_TOKENS) answers
  // PERSISTED_QUERY_NOT_FOUND once per operation and the link sends the document with it, registering it.
  const http = new HttpLink({ uri: "/graphql" });
  // Lazy: the socket opens with the first subscription and closes after the last, so a page without one holds none.
  const sockets = createClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`,
    // While the API is away the page keeps trying, as its HTTP half does every few seconds (graphql-ws gives up after 5).
    retryAttempts: Infinity,
    retryWait: (retries) =>
      new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MAX_MS, 500 * 2 ** retries) * (0.5 + Math.random() / 2))),
    on: {
      // Subscriptions start again from now: what was bought while the socket was down is read again.
      connected: (_socket, _payload, wasRetry) => void (wasRetry && client.refetchObservableQueries()),
    },
  });
  const link = new PersistedQueryLink({ generateHash: trustedHash }).concat(split(isSubscription, new GraphQLWsLink(sockets), http));
  const client = new ApolloClient({ link, cache: new InMemoryCache() });
  return client;
}

const RETRY_MAX_MS = 3_000;
