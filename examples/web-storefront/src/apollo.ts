import { ApolloClient, HttpLink, InMemoryCache, split } from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { getMainDefinition } from "@apollo/client/utilities";
import type { ASTNode, DocumentNode } from "graphql";
import { createClient } from "graphql-ws";
import backOfficeDocuments from "./back-office/__generated__/persisted-documents.json";
import storefrontDocuments from "./__generated__/persisted-documents.json";
import { LIVE } from "./live-status";
import { SIGNED_IN_OPERATION } from "./operations";
import { SHOPPER_GRAPHQL } from "../server/routes";

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
 * The exact text the manifest holds for a generated document: when the API asks for the document behind a hash (a
 * caller not held to trusted documents: a shopper, or an API without them), the text sent must hash to that hash,
 * and the manifest's text is normalized (codegen prints it its own way), where graphql-js's print is not.
 */
const MANIFESTS: Record<string, string> = { ...storefrontDocuments, ...backOfficeDocuments };
const printAsInManifest = (node: ASTNode, originalPrint: (node: ASTNode) => string) =>
  MANIFESTS[(node as ASTNode & { __meta__?: { hash?: string } }).__meta__?.hash ?? ""] ?? originalPrint(node);

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
  // The shopper's own operations go where the storefront's server side adds the shopper's token (server/session.ts).
  const http = new HttpLink({
    print: printAsInManifest,
    uri: ({ operationName }) => (operationName && SIGNED_IN_OPERATION.test(operationName) ? SHOPPER_GRAPHQL : "/graphql"),
  });
  // Lazy: the socket opens with the first subscription and closes after the last, so a page without one holds none.
  const sockets = createClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`,
    // While the API is away the page keeps trying, as its HTTP half does every few seconds. Both are needed:
    // retryAttempts alone retries only a close event, and a browser reports a refused handshake (the API restarting
    // behind the proxy) as an error event, which graphql-ws takes as fatal unless shouldRetry says otherwise.
    retryAttempts: Infinity,
    shouldRetry: () => true,
    retryWait: (retries) =>
      new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MAX_MS, 500 * 2 ** retries) * (0.5 + Math.random() / 2))),
    on: {
      // A close the client did not ask for (anything but 1000, which the lazy socket sends after its last
      // subscription): the figures on screen stop following purchases until the socket is back.
      closed: (event) => LIVE.set((event as { code?: number } | undefined)?.code !== NORMAL_CLOSURE),
      // Subscriptions start again from now: what was bought while the socket was down is read again.
      connected: (_socket, _payload, wasRetry) => {
        LIVE.set(false);
        if (wasRetry) void client.refetchObservableQueries();
      },
    },
  });
  const link = new PersistedQueryLink({ generateHash: trustedHash }).concat(split(isSubscription, new GraphQLWsLink(sockets), http));
  const client = new ApolloClient({ link, cache: new InMemoryCache() });
  return client;
}

const RETRY_MAX_MS = 3_000;
// The WebSocket close code of a close asked for (RFC 6455, 7.4.1).
const NORMAL_CLOSURE = 1000;
