import type { ClientRequest } from "node:http";
import react from "@vitejs/plugin-react";
import { defineConfig, type ProxyOptions } from "vite";
import { foreignOrigin, SHOPPER_GRAPHQL, storefrontSession } from "./server/session";

// The page asks its own origin for /graphql and this proxy forwards to the API, so the browser needs no CORS and
// never holds a token. /graphql carries STOREFRONT_TOKEN (empty while the API is open, as `npm start` without
// API_TOKENS), to each HTTP request and to the upgrade request of each WebSocket (subscriptions), which the API reads
// as the connection's token: what every visitor may read. /shopper/graphql carries the signed-in shopper's own access
// token, which server/session.ts sets from the session cookie (and answers 401 without one): what only the shopper may.
const apiUrl = new URL(process.env.API_URL ?? "http://localhost:4000/graphql");
const token = process.env.STOREFRONT_TOKEN ?? "";
// Shoppers sign in at OIDC_ISSUER, by default the development issuer `npm start` serves.
const issuer = process.env.OIDC_ISSUER ?? "http://127.0.0.1:4001";
const clientId = process.env.OIDC_CLIENT_ID ?? "storefront";

// The API's path, keeping the query string: a GET carries its operation there.
const toApiPath = (path: string) => apiUrl.pathname + path.slice(path.indexOf("?") === -1 ? path.length : path.indexOf("?"));
// The session cookie is the storefront's own: the API never sees it.
const withoutCookies = (request: ClientRequest) => void request.removeHeader("cookie");

const graphqlProxy: Record<string, ProxyOptions> = {
  "/graphql": {
    target: apiUrl.origin,
    changeOrigin: true,
    ws: true,
    bypass: foreignOrigin,
    rewrite: toApiPath,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    configure: (proxy) => {
      proxy.on("proxyReq", withoutCookies);
      proxy.on("proxyReqWs", withoutCookies);
    },
  },
  [SHOPPER_GRAPHQL]: {
    target: apiUrl.origin,
    changeOrigin: true,
    bypass: foreignOrigin,
    rewrite: toApiPath,
    configure: (proxy) => void proxy.on("proxyReq", withoutCookies),
  },
};

export default defineConfig({
  root: __dirname,
  plugins: [react(), storefrontSession({ issuer, clientId })],
  server: { proxy: graphqlProxy },
  preview: { proxy: graphqlProxy },
  build: { outDir: "dist", emptyOutDir: true },
});
