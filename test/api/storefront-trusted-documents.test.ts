import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readTrustedDocuments } from "../../src/auth/trusted-documents";
import type { RunningServer } from "../../src/graphql/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { errorCodes, freePort, getUrl, send, startTestHttpServer, type HttpAnswer } from "../support/http";
import { configuredTokens, tokenSpec } from "../support/tokens";

/**
 * The web storefront's proxy (examples/web-storefront/vite.config.ts) adds its token to whatever arrives. With the
 * token marked `"trustedDocuments": true` and the manifest `npm run codegen` writes, the API runs for it only the
 * storefront's own operations, by hash: through the proxy, anyone can do what the page does, and nothing more.
 */
const ROOT = join(__dirname, "..", "..");
const EXAMPLE = join(ROOT, "examples", "web-storefront");
const MANIFEST = join(EXAMPLE, "src", "__generated__", "persisted-documents.json");
const storefront = { ...tokenSpec("storefront", ["purchases:read", "catalog:write"]), trustedDocuments: true };
const staff = tokenSpec("staff", ["purchases:read", "catalog:write"]);

/** The manifest's operations by name, with variables each can run with. */
const trusted = Object.entries(JSON.parse(readFileSync(MANIFEST, "utf8")) as Record<string, string>).map(([key, document]) => ({
  hash: key.replace(/^sha256:/, ""),
  name: /^(?:query|mutation) (\w+)/.exec(document)![1]!,
}));
const VARIABLES: Record<string, Record<string, unknown>> = {
  StorefrontShelf: { first: 10, orderBy: { field: "PURCHASE_COUNT", direction: "DESC" } },
  StorefrontBookPage: { id: "1", buyers: 10 },
  StorefrontBuy: { bookId: "1", customerId: "shopper", purchaseId: "trusted-documents-test-1" },
};

// Operations outside the manifest: what the curl sent, a storefront document sent as text, and every operation of the command-line example.
const cliOperations = readdirSync(join(ROOT, "examples", "storefront", "operations")).map((file) =>
  readFileSync(join(ROOT, "examples", "storefront", "operations", file), "utf8"),
);
const UNTRUSTED: [string, string][] = [
  ["another customer's history", `{ customer(id: "user00") { booksPurchased(first: 5) { edges { node { title } } } } }`],
  ["addBook", `mutation { addBook(input: { id: "999", title: "Planted", author: "Anyone" }) { book { id } } }`],
  ["a storefront operation sent as a document", JSON.parse(readFileSync(MANIFEST, "utf8"))[`sha256:${trusted[0]!.hash}`]],
  ...cliOperations.map((document): [string, string] => [
    `the command-line example's ${/(?:query|mutation) (\w+)/.exec(document)![1]}`,
    document,
  ]),
];

const byHash = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send(url, body, { headers: { "content-type": "application/json", ...headers } });

let database: TestDatabase;
let api: RunningServer;
let proxy: { url: string; child: ChildProcess };
beforeAll(async () => {
  database = await openTestDatabase();
  await seedBook(database.db, "1", customers(3));
  api = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(storefront, staff),
    trustedDocuments: readTrustedDocuments(MANIFEST),
  });
  proxy = await startProxy(api.url, storefront.token);
}, 120_000);
afterAll(async () => {
  proxy.child.kill("SIGTERM");
  await once(proxy.child, "exit");
  await api.stop();
  await database.close();
});

/** `npm run example:web`'s dev server and its proxy, pointed at the test's API with the storefront's token. */
async function startProxy(apiUrl: string, token: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(ROOT, "node_modules", "vite", "bin", "vite.js"), EXAMPLE, "--port", String(port), "--strictPort"],
    {
      cwd: ROOT,
      env: { ...process.env, API_URL: apiUrl, STOREFRONT_TOKEN: token },
      stdio: "ignore",
    },
  );
  const url = `http://localhost:${port}/graphql`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vite exited with ${child.exitCode} before it served the page`);
    const answered = await fetch(`http://localhost:${port}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return { url, child };
    await sleep(200);
  }
}

describe("the web storefront's token, through the example's proxy", () => {
  it.each(trusted.map(({ name, hash }) => [name, hash]))("runs the storefront's %s by its hash", async (name, hash) => {
    const answer = await post(proxy.url, { operationName: name, variables: VARIABLES[name], extensions: byHash(hash) });
    expect(answer.json?.errors).toBeUndefined();
    expect(answer.json?.data).toBeTruthy();
  });

  it("runs the storefront's queries by hash with GET too", async () => {
    const shelf = trusted.find(({ name }) => name === "StorefrontShelf")!;
    const answer = await send(getUrl(proxy.url, { variables: VARIABLES.StorefrontShelf, extensions: byHash(shelf.hash) }), undefined, {
      method: "GET",
      headers: {},
    });
    expect([answer.status, answer.json?.errors]).toEqual([200, undefined]);
  });

  it.each(UNTRUSTED)("refuses %s with DOCUMENT_NOT_TRUSTED (403), by POST and GET, and runs nothing", async (_name, document) => {
    const answers: HttpAnswer[] = [
      await post(proxy.url, { query: document, variables: {} }),
      await send(getUrl(proxy.url, { query: document }), undefined, { method: "GET", headers: {} }),
    ];
    for (const answer of answers)
      expect([answer.status, errorCodes(answer), answer.json?.data]).toEqual([403, ["DOCUMENT_NOT_TRUSTED"], undefined]);
    const planted = await post(api.url, { query: `{ book(id: "999") { id } }` });
    expect(planted.json?.data).toEqual({ book: null });
  });

  it("refuses a hash the manifest lacks, and a request with neither document nor hash", async () => {
    const unknown = await post(proxy.url, { variables: {}, extensions: byHash("0".repeat(64)) });
    const empty = await post(proxy.url, { variables: {} });
    for (const answer of [unknown, empty]) expect([answer.status, errorCodes(answer)]).toEqual([403, ["DOCUMENT_NOT_TRUSTED"]]);
  });
});

describe("everyone else, straight to the API", () => {
  it("serves an anonymous GET of a public query, and a token not marked for trusted documents any document", async () => {
    const query = `query Titles { books(first: 2) { edges { node { title } } } }`;
    const anonymous = await send(getUrl(api.url, { query }), undefined, { method: "GET", headers: {} });
    const other = await post(api.url, { query: UNTRUSTED[0]![1] }, { authorization: `Bearer ${staff.token}` });
    expect([anonymous.status, anonymous.json?.errors, other.json?.errors]).toEqual([200, undefined, undefined]);
  });
});
