import type { IncomingMessage } from "node:http";
import react from "@vitejs/plugin-react";
import { defineConfig, type ProxyOptions } from "vite";

// The page asks its own origin for /graphql and this proxy forwards to the API, so the browser needs no CORS and
// never holds the token: STOREFRONT_TOKEN (empty while the API is open, as `npm start` without API_TOKENS) is added here,
// to each HTTP request and to the upgrade request of each WebSocket (subscriptions), which the API reads as the connection's token.
const apiUrl = new URL(process.env.API_URL ?? "http://localhost:4000/graphql");
const token = process.env.STOREFRONT_TOKEN ?? "";

/**
 * Only the page's own origin (or a client that is no browser, which sends no Origin and could as well call the API
 * itself) gets through, for the WebSocket and for HTTP alike. A browser sends any site's WebSocket with no CORS check,
 * and the API answers every origin's HTTP request (`access-control-allow-origin: *`): without this, another site open
 * in the same browser could subscribe, or read a query it sent by hash, with the storefront's token. A browser sends
 * Origin with every cross-origin request, so a request from another site always names it. A refused request is
 * answered 404, as vite answers a bypassed one.
 */
function foreignOrigin(request: IncomingMessage): false | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  return URL.canParse(origin) && new URL(origin).host === request.headers.host ? undefined : false;
}

const graphqlProxy: Record<string, ProxyOptions> = {
  "/graphql": {
    target: apiUrl.origin,
    changeOrigin: true,
    ws: true,
    bypass: foreignOrigin,
    // The API's path, keeping the query string: a GET carries its operation there.
    rewrite: (path) => apiUrl.pathname + path.slice(path.indexOf("?") === -1 ? path.length : path.indexOf("?")),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  },
};

export default defineConfig({
  root: __dirname,
  plugins: [react()],
  server: { proxy: graphqlProxy },
  preview: { proxy: graphqlProxy },
  build: { outDir: "dist", emptyOutDir: true },
});
