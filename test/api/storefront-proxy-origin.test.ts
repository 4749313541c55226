import { readFileSync } from "node:fs";
import { readTrustedDocuments } from "../../src/auth/trusted-documents";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, getUrl, send, startTestHttpServer } from "../support/http";
import { startStorefrontProxy, WEB_STOREFRONT_MANIFEST, type StorefrontProxy } from "../support/storefront-proxy";
import { configuredTokens, tokenSpec } from "../support/tokens";

/**
 * The web storefront's proxy (examples/web-storefront/vite.config.ts) adds its token to whatever reaches it, and the
 * API answers every origin (`access-control-allow-origin: *`): its Origin rule must hold for HTTP as for the WebSocket,
 * or another site's page, open in the same browser, reads what the storefront's token may (issue 51, item 6).
 */
const MANIFEST = WEB_STOREFRONT_MANIFEST;
const storefront = { ...tokenSpec("origin-storefront", ["purchases:read"]), trustedDocuments: true };

/** The storefront's shelf query, by its hash, as the page sends it by GET. */
const shelfHash = Object.entries(JSON.parse(readFileSync(MANIFEST, "utf8")) as Record<string, string>)
  .find(([, document]) => document.startsWith("query StorefrontShelf"))![0]
  .replace(/^sha256:/, "");
const SHELF = {
  variables: { first: 2, orderBy: { field: "PURCHASE_COUNT", direction: "DESC" } },
  extensions: { persistedQuery: { version: 1, sha256Hash: shelfHash } },
};

let database: TestDatabase;
let api: RunningServer;
let proxy: StorefrontProxy;
beforeAll(async () => {
  database = await openTestDatabase();
  await seedBook(database.db, "1", customers(3));
  api = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(storefront),
    trustedDocuments: readTrustedDocuments(MANIFEST),
  });
  proxy = await startStorefrontProxy(api.url, storefront.token);
}, 120_000);
afterAll(async () => {
  await proxy.stop();
  await api.stop();
  await database.close();
});

/** The shelf by GET through the proxy, from a page of `origin` (undefined: no browser, no Origin header). */
async function shelfFrom(origin: string | undefined) {
  const answer = await send(getUrl(proxy.url, SHELF), undefined, { method: "GET", headers: origin ? { origin } : {} });
  return [answer.status, answer.json?.data === undefined ? "no data" : "data"];
}

it("answers the page's own origin and clients that are no browser, and refuses another site's page 404, by HTTP as by WebSocket", async () => {
  expect(await shelfFrom(new URL(proxy.url).origin)).toEqual([200, "data"]);
  expect(await shelfFrom(undefined)).toEqual([200, "data"]);
  expect(await shelfFrom("https://another-site.example")).toEqual([404, "no data"]);
});

describe("the storefront's sign-in side (examples/web-storefront/server/session.ts)", () => {
  const origin = () => new URL(proxy.url).origin;
  const VIEWER = JSON.stringify({ query: "{ viewer { databaseId } }" });

  it("says who is signed in with no token in the answer: no session, { signedIn: false }", async () => {
    const answer = await send(`${origin()}/auth/session`, undefined, { method: "GET", headers: { cookie: "storefront_session=made-up" } });
    expect([answer.status, answer.json]).toEqual([200, { signedIn: false }]);
  });

  it("answers the shopper's endpoint 401 UNAUTHENTICATED without a live session, whatever token or cookie the client sends itself", async () => {
    const sent: Record<string, string>[] = [{}, { cookie: "storefront_session=made-up" }, { authorization: `Bearer ${storefront.token}` }];
    for (const headers of sent) {
      const answer = await send(`${origin()}/shopper/graphql`, VIEWER, { headers: { "content-type": "application/json", ...headers } });
      expect([answer.status, errorCodes(answer), answer.json?.data]).toEqual([401, ["UNAUTHENTICATED"], undefined]);
    }
  });

  it("refuses another site's page 404 on the shopper's endpoint and on sign-out", async () => {
    const foreign = { origin: "https://another-site.example", "content-type": "application/json" };
    const shopper = await send(`${origin()}/shopper/graphql`, VIEWER, { headers: foreign });
    const logout = await send(`${origin()}/auth/logout`, "", { headers: foreign });
    expect([shopper.status, logout.status]).toEqual([404, 404]);
  });
});
