import react from "@vitejs/plugin-react";
import { defineConfig, type ProxyOptions } from "vite";

// The page asks its own origin for /graphql and this proxy forwards to the API, so the browser needs no CORS and
// never holds the token: STOREFRONT_TOKEN (empty while the API is open, as `npm start` without API_TOKENS) is added here.
const apiUrl = new URL(process.env.API_URL ?? "http://localhost:4000/graphql");
const token = process.env.STOREFRONT_TOKEN ?? "";
const graphqlProxy: Record<string, ProxyOptions> = {
  "/graphql": {
    target: apiUrl.origin,
    changeOrigin: true,
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
