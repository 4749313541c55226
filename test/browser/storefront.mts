import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { chromium, type Browser, type Page } from "playwright-core";
import { build, preview, type PreviewServer } from "vite";
import { DEV_AUDIENCE } from "../../src/config.js";
import { scrapeMetrics } from "../support/metrics.js";

/**
 * `npm run test:browser`: the web storefront example in Debian's Chromium, against the API on its
 * throwaway database with the demo catalog, as a developer would open it. Builds the page, starts the
 * API (and with it the development OpenID issuer) and the page, then drives the browser through the bestsellers, the
 * search, an author's page and the outlier *The Wooden Amulet*, at desktop and phone widths, failing on any console
 * error; signs a shopper in at the issuer's sign-in page, buys, finds the book under My books and signs out, with no
 * token ever reaching the page; watches one book through a second API process on the same throwaway replica set while
 * a purchase is made through the first, as it happens, over the page's WebSocket and its process's change stream; and
 * keeps a book page open while the API restarts, until it says it is live again and shows a purchase made after.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const EXAMPLE = join(ROOT, "examples", "web-storefront");
const SCREENSHOTS = join(EXAMPLE, "screenshots");
/** A screenshot in the example's folder, and the ones docs/examples.md shows copied to docs/ as `storefront-<name>.png`. */
async function screenshot(page: Page, name: string, { fullPage = false, toDocs = false } = {}): Promise<void> {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  if (toDocs) copyFileSync(path, join(DOCS, `storefront-${name}.png`));
}
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const DOCS = join(ROOT, "docs");
const MANIFEST = join(EXAMPLE, "src", "__generated__", "persisted-documents.json");
const WOODEN_AMULET = "2";
// The proxy's token, held to the page's trusted documents (purchases:read for "customers also bought" alone: the
// buyers' list is not among them), and the test's own for its direct calls (buying beside the page).
const STOREFRONT_TOKEN = randomBytes(32).toString("hex");
const TEST_TOKEN = randomBytes(32).toString("hex");
const API_TOKENS = JSON.stringify([
  { name: "storefront", token: STOREFRONT_TOKEN, scopes: ["purchases:read"], trustedDocuments: true },
  { name: "browser-test", token: TEST_TOKEN, scopes: ["purchases:read", "catalog:write"] },
]);
/** The shopper who signs in: one of the demo catalog's customers, whom the development issuer takes with any password. */
const SHOPPER = "user900";
/**
 * The development issuer's client `storefront` sends shoppers back to http://localhost:5173/auth/callback only
 * (src/auth/dev-issuer.ts), so the page the shopper signs in on is served there.
 */
const SIGN_IN_PORT = 5173;
// Far longer than any step takes on a busy machine: a step that waits this long is broken, not slow.
const STEP_TIMEOUT_MS = 60_000;

const step = (text: string) => console.log(`browser test: ${text}`);

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium), or set CHROMIUM_PATH to one.`);
  }
  step("building the web storefront (vite build)");
  await build({ root: EXAMPLE, configFile: join(EXAMPLE, "vite.config.ts"), logLevel: "warn" });
  step("starting the API on its throwaway database with the demo catalog, tokens, its response cache on and its development issuer");
  const port = await freePort();
  // The issuer `npm start` serves on loopback, on a port of this run's own; the page signs shoppers in there.
  const issuerPort = await freePort();
  const issuer = `http://127.0.0.1:${issuerPort}`;
  let api = await startApi(port, { issuerPort });
  let page: PreviewServer | undefined;
  try {
    page = await startPage(api.url, issuer, SIGN_IN_PORT);
    const origin = pageOrigin(page);
    step(`the page is at ${origin}, the API at ${api.url}`);
    const restartApi = async () => {
      await api.stop();
      return async () => void (api = await startApi(port, { issuerPort }));
    };
    const { databaseUri } = api;
    await driveBrowser(
      origin,
      issuer,
      () => api.url,
      restartApi,
      () => startSecondApi(databaseUri, issuer),
    );
  } finally {
    await page?.close();
    await api.stop();
  }
}

/** The built page served by vite's preview, its /graphql proxied to `apiUrl`, its shoppers signed in at `issuer`. */
async function startPage(apiUrl: string, issuer: string, port?: number): Promise<PreviewServer> {
  // vite.config.ts reads API_URL, STOREFRONT_TOKEN and OIDC_ISSUER each time the configuration loads.
  process.env.API_URL = apiUrl;
  process.env.STOREFRONT_TOKEN = STOREFRONT_TOKEN;
  process.env.OIDC_ISSUER = issuer;
  try {
    return await preview({
      root: EXAMPLE,
      configFile: join(EXAMPLE, "vite.config.ts"),
      preview: { port: port ?? (await freePort()), strictPort: true },
    });
  } catch (error) {
    if (port === SIGN_IN_PORT)
      throw new Error(
        `port ${SIGN_IN_PORT} is taken: stop what listens there (npm run example:web?); the development issuer sends shoppers back to it`,
        {
          cause: error,
        },
      );
    throw error;
  }
}

const pageOrigin = (page: PreviewServer) => page.resolvedUrls?.local[0] ?? "";

interface Api {
  url: string;
  /** The database it serves: its throwaway one's address, which it logs for the tools, or the one it was given. */
  databaseUri: string;
  stop(): Promise<void>;
}

/**
 * A second API process, on the first one's database (no demo data loaded again) and trusting the first one's
 * issuer, as production's processes share one, and a page of its own in front of it.
 */
async function startSecondApi(databaseUri: string, issuer: string): Promise<SecondApi> {
  const api = await startApi(await freePort(), { databaseUri, issuer });
  const page = await startPage(api.url, issuer).catch(async (error: unknown) => {
    await api.stop();
    throw error;
  });
  return {
    origin: pageOrigin(page),
    apiUrl: api.url,
    stop: async () => {
      await page.close();
      await api.stop();
    },
  };
}

/** Its output is read for the throwaway database's address; its warnings and errors reach this run's output, so that a failure to start says why. */
async function startApi(
  port: number,
  { databaseUri, issuerPort, issuer }: { databaseUri?: string; issuerPort?: number; issuer?: string },
): Promise<Api> {
  // The response cache on (5 s, the default): the page must still show a purchase at once.
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    NODE_ENV: "development",
    LOG_LEVEL: "info",
    API_TOKENS,
    TRUSTED_DOCUMENTS: MANIFEST,
    ...(databaseUri ? { MONGODB_URI: databaseUri } : {}),
    // Either serves the development issuer on that port, or trusts the one already served.
    ...(issuerPort ? { OIDC_DEV_PORT: String(issuerPort) } : {}),
    // The development issuer's tokens are for the audience an API takes without OIDC_ISSUER.
    ...(issuer ? { OIDC_ISSUER: issuer, OIDC_AUDIENCE: DEV_AUDIENCE } : {}),
  };
  if (!databaseUri) delete env.MONGODB_URI;
  if (!issuer) delete env.OIDC_ISSUER;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/start.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
  let loggedUri: string | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    // Not a TTY, so pino writes JSON lines: info and below (each request's line) are read here, not shown.
    const entry = line.startsWith("{") ? (JSON.parse(line) as { level?: number; msg?: string }) : { msg: line };
    loggedUri ??= /MONGODB_URI=(\S+)/.exec(entry.msg ?? "")?.[1];
    if ((entry.level ?? WARN) >= WARN) console.log(line);
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  try {
    await untilListening(child, port);
    const uri = databaseUri ?? loggedUri;
    if (!uri) throw new Error("the API did not log its throwaway database's address (MONGODB_URI=…) before it was ready");
    return { url: `http://127.0.0.1:${port}/graphql`, databaseUri: uri, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// pino's level number for warn.
const WARN = 40;

/** Resolves once the API answers /readyz with 200 (demo data loaded, indexes in place); rejects if the process ends first. */
async function untilListening(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + 10 * STEP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} before it was ready`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the API was not ready within 10 minutes");
}

/** Stops the API; the function it resolves with starts it again on the same port. */
type ApiRestart = () => Promise<() => Promise<void>>;

/** Another API process on the same database, and the page served in front of it. */
interface SecondApi {
  origin: string;
  apiUrl: string;
  stop(): Promise<void>;
}

async function driveBrowser(
  origin: string,
  issuer: string,
  apiUrl: () => string,
  restartApi: ApiRestart,
  secondApi: () => Promise<SecondApi>,
): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Chromium's sandbox needs user namespaces that a root user in a container often lacks.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: DESKTOP });
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const consoleErrors: string[] = [];
    const uncaught: string[] = [];
    // The issuer's sign-in page is oidc-provider's, not the storefront's (it asks for web fonts this machine may not reach);
    // the back office's refusals are answered 401 and 403, which the browser logs as failed requests.
    const expected = { refusals: false };
    page.on("console", (message) => {
      if (message.type() !== "error" || page.url().startsWith(issuer) || message.location().url.startsWith(issuer)) return;
      if (expected.refusals && /status of 40[13]/.test(message.text())) return;
      consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => void uncaught.push(error.message));
    // The proxy adds every token on the server side: nothing the page sends carries one.
    const sentAuthorization: string[] = [];
    page.on("request", (request) => void (request.headers()["authorization"] !== undefined && sentAuthorization.push(request.url())));
    await loading(page, origin);
    await bestsellers(page, origin, apiUrl());
    await liveShelf(page, origin, apiUrl());
    await search(page, origin);
    await authorPage(page);
    await woodenAmulet(page, origin, apiUrl());
    const bought = await signInAndBuy(page, origin, apiUrl());
    await leavingAfterBuy(page, origin);
    await myBooks(page, apiUrl(), bought);
    expected.refusals = true;
    await backOffice(page, origin, "FORBIDDEN", "a shopper");
    await signOut(page, origin);
    await backOffice(page, origin, "UNAUTHENTICATED", "a visitor not signed in");
    expected.refusals = false;
    await liveAcrossProcesses(browser, { origin, apiUrl: apiUrl() }, secondApi);
    await bestsellersWhileBuying(page, origin, apiUrl());
    await phone(page, origin);
    assert.deepEqual([...consoleErrors, ...uncaught], [], "no console errors on any page");
    assert.deepEqual(sentAuthorization, [], "no request from the page carried an Authorization header");
    await unknownBook(page, origin);
    // The browser logs each failed request as a console error while the API is away: only uncaught errors count here.
    await liveThroughRestart(page, origin, restartApi, apiUrl);
    await apiAway(page, origin, restartApi);
    assert.deepEqual(uncaught, [], "no uncaught error, the API away and back included");
  } catch (error) {
    // What the shopper saw when a step failed, for whoever reads the failure.
    for (const page of browser.contexts().flatMap((context) => context.pages())) {
      console.log(
        `browser test: ${page.url()} showed: ${
          (await page
            .locator("body")
            .textContent()
            .catch(() => "")) ?? ""
        }`,
      );
      await screenshot(page, "failed").catch(() => undefined);
    }
    throw error;
  } finally {
    await browser.close();
  }
}

const DESKTOP = { width: 1100, height: 900 };
const PHONE = { width: 390, height: 844 };

/** The databaseIds of the books shown, in order. */
const shownBooks = (page: Page) =>
  page.locator("[data-testid=shelf] li").evaluateAll((items) => items.map((item) => item.getAttribute("data-book-id")!));

async function bestsellers(page: Page, origin: string, apiUrl: string): Promise<void> {
  step("the home page: the bestsellers, in the API's order, a window at a time");
  await page.goto(`${origin}/#/`);
  const books = page.locator("[data-testid=shelf] li");
  await books.nth(9).waitFor();
  const expected = await bestsellerIds(apiUrl, 20);
  assert.deepEqual(await shownBooks(page), expected.slice(0, 10), "the first window is the API's first 10 bestsellers");
  assert.deepEqual(await windowShown(page), { label: "1–10 of 3,002 books", ranks: range(1, 10) });
  await screenshot(page, "bestsellers", { toDocs: true });

  step("while the next window loads, the label and the ranks are still the shown window's");
  await slowGraphql(page, async () => {
    await page.getByRole("button", { name: "Next →" }).click();
    assert.deepEqual(await windowShown(page), { label: "1–10 of 3,002 books", ranks: range(1, 10) });
  });
  await page.locator(`[data-testid=shelf] li[data-book-id="${expected[10]}"]`).waitFor();
  assert.deepEqual(await shownBooks(page), expected.slice(10, 20), "the next window replaces the first, never merged into it");
  assert.deepEqual(await windowShown(page), { label: "11–20 of 3,002 books", ranks: range(11, 20) });
  await page.getByRole("button", { name: "← Previous" }).click();
  await page.locator(`[data-testid=shelf] li[data-book-id="${expected[0]}"]`).waitFor();
  assert.deepEqual(await shownBooks(page), expected.slice(0, 10));
}

async function liveShelf(page: Page, origin: string, apiUrl: string): Promise<void> {
  step("the bestsellers' counts follow a purchase made elsewhere, with no reload and no request over HTTP");
  await page.goto(`${origin}/#/`);
  await page.locator("[data-testid=shelf] li").nth(9).waitFor();
  await untilSubscriptions(apiUrl, "bookSales", 1);
  const [top] = await shownBooks(page);
  const sold = page.locator(`[data-testid=shelf] li[data-book-id="${top}"] .sold`);
  const before = Number(((await sold.textContent()) ?? "").replace(/[^0-9]/g, ""));
  const askedOverHttp: string[] = [];
  const asked = (request: import("playwright-core").Request) =>
    void (request.url().includes("/graphql") && askedOverHttp.push(request.url()));
  page.on("request", asked);
  try {
    await buy(apiUrl, top!, "live-shelf-shopper");
    await sold.filter({ hasText: `${(before + 1).toLocaleString("en")} sold` }).waitFor();
  } finally {
    page.off("request", asked);
  }
  assert.deepEqual(askedOverHttp, [], "the shelf asked the API nothing: the count came over its WebSocket");
}

async function search(page: Page, origin: string): Promise<void> {
  step('the search box answers as the shopper types: "amulet" finds The Wooden Amulet');
  await page.goto(`${origin}/#/`);
  await page.getByRole("searchbox").pressSequentially("amulet", { delay: 40 });
  await page.getByRole("heading", { name: "Books matching “amulet”" }).waitFor();
  await page.locator(`[data-testid=shelf] li[data-book-id="${WOODEN_AMULET}"]`).filter({ hasText: "The Wooden Amulet" }).waitFor();
  await screenshot(page, "search");
}

async function authorPage(page: Page): Promise<void> {
  step("an author's page, from the book's byline in the search results");
  await page.locator(`[data-testid=shelf] li[data-book-id="${WOODEN_AMULET}"]`).getByRole("link", { name: "Lesley Moreno" }).click();
  await page.getByTestId("author-name").filter({ hasText: "Lesley Moreno" }).waitFor();
  await page.locator(`[data-testid=shelf] li[data-book-id="${WOODEN_AMULET}"]`).waitFor();
  assert.match((await page.getByTestId("shelf-count").textContent()) ?? "", /^1–\d+ of \d+ books?$/);
}

async function woodenAmulet(page: Page, origin: string, apiUrl: string): Promise<void> {
  step("The Wooden Amulet, signed out: its count and what its buyers also bought, no customer's id, and Buy asks to sign in");
  await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
  await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
  await page.getByTestId("also-bought").waitFor();
  assert.equal(await shownCount(page), await storedCount(apiUrl, WOODEN_AMULET));
  assert.equal(await page.locator("[data-testid=buyers]").count(), 0, "no buyers' list on the public page");
  assert.doesNotMatch((await page.locator("main").textContent()) ?? "", CUSTOMER_ID, "no customer's id on the public page");
  assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /EXTRA_SALES|EMBEDDED/, "no storage name is shown");
  await page.getByRole("link", { name: "Sign in to buy" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Buy", exact: true }).count(), 0, "no Buy before signing in");
}

// The demo catalog's customer ids (src/auth/dev-issuer.ts) and the ones this test buys as.
const CUSTOMER_ID = /\b(user\d{2,3}|customer-\d+|[a-z]+-shopper\S*)\b/;

/**
 * Signs the shopper in through the storefront's server side and the development issuer's own sign-in page, then buys
 * a book the shopper never bought; resolves with its id. The page never holds a token: the session cookie is
 * HttpOnly, the session answer names the customer only, and sign-out ends the session on the server.
 */
async function signInAndBuy(page: Page, origin: string, apiUrl: string): Promise<string> {
  const book = await bookNotBoughtBy(apiUrl, SHOPPER);
  step(`signing in as ${SHOPPER} at the development issuer's page (any password, then consent), from book ${book}'s page`);
  await page.goto(`${origin}/#/book/${book}`);
  await page.getByRole("link", { name: "Sign in to buy" }).click();
  await page.locator("input[name=login]").fill(SHOPPER);
  await page.locator("input[name=password]").fill("any password at all");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Buy", exact: true }).waitFor();
  assert.equal(new URL(page.url()).hash, `#/book/${book}`, "back on the page the shopper signed in from");

  step("no token reaches the page: the session cookie is HttpOnly, /auth/session names the customer only, storage is empty");
  const cookies = await page.context().cookies(origin);
  const session = cookies.find(({ name }) => name === "storefront_session");
  assert.ok(session, "the storefront set its session cookie");
  assert.deepEqual([session.httpOnly, session.sameSite], [true, "Lax"]);
  assert.doesNotMatch(await page.evaluate("document.cookie"), /storefront_session/, "page scripts cannot read the session cookie");
  assert.deepEqual(await page.evaluate(async () => (await fetch("/auth/session")).json()), { signedIn: true, customerId: SHOPPER });
  assert.equal(await page.evaluate("localStorage.length + sessionStorage.length"), 0, "nothing stored in the page");

  step("buying it as the signed-in shopper, with no customer to type; sending the same order line again buys nothing");
  const before = await storedCount(apiUrl, book);
  await page.getByRole("button", { name: "Buy", exact: true }).click();
  await page.getByTestId("purchase-outcome").filter({ hasText: "Bought. Thank you!" }).waitFor();
  await countShown(page, before + 1);
  await page.getByRole("button", { name: "Send again" }).click();
  await page.getByTestId("purchase-outcome").filter({ hasText: "Already bought" }).waitFor();
  assert.equal(await storedCount(apiUrl, book), before + 1, "the database holds one purchase more, not two");
  assert.ok((await booksOf(apiUrl, SHOPPER)).includes(book), "the purchase is the signed-in shopper's");
  await screenshot(page, "book", { toDocs: true });
  return book;
}

async function myBooks(page: Page, apiUrl: string, bought: string): Promise<void> {
  step("My books: the shopper's own books, in the API's order, the one just bought among them");
  await page.getByRole("link", { name: "My books" }).click();
  await page.getByTestId("signed-in-as").filter({ hasText: SHOPPER }).waitFor();
  await page.locator(`[data-testid=my-books] li[data-book-id="${bought}"]`).waitFor();
  const shown = await page
    .locator("[data-testid=my-books] li")
    .evaluateAll((items) => items.map((item) => item.getAttribute("data-book-id")!));
  assert.deepEqual(shown, (await booksOf(apiUrl, SHOPPER)).slice(0, 10));
  await screenshot(page, "my-books", { toDocs: true });
  await page.setViewportSize(PHONE);
  await screenshot(page, "my-books-phone", { toDocs: true });
  await page.setViewportSize(DESKTOP);
}

async function backOffice(page: Page, origin: string, code: string, who: string): Promise<void> {
  step(`the back office's buyers of a book, for ${who}: the API's ${code}, in words, and no buyer shown`);
  await page.goto(`${origin}/#/back-office/book/${WOODEN_AMULET}`);
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.equal(await alert.getAttribute("data-code"), code);
  assert.equal(await page.locator("[data-testid=buyers]").count(), 0);
}

async function signOut(page: Page, origin: string): Promise<void> {
  step("signing out: the page offers Sign in again, and the session is gone from the server, not only from the browser");
  await page.goto(`${origin}/#/`);
  const [session] = (await page.context().cookies(origin)).filter(({ name }) => name === "storefront_session");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  assert.deepEqual(await page.evaluate(async () => (await fetch("/auth/session")).json()), { signedIn: false });
  // The old cookie, replayed (as one copied before sign-out would be), no longer reaches the shopper's token.
  const replayed = await fetch(new URL("/shopper/graphql", origin), {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `storefront_session=${session!.value}` },
    body: JSON.stringify({ query: "{ viewer { databaseId } }" }),
  });
  assert.equal(replayed.status, 401);
}

/**
 * One book watched at each width through one API process while it is bought through the other, each process on the
 * same replica set: the count shows the purchase without a reload and without a request over HTTP, so through the
 * watching process's change stream and the page's subscription. The issue's figure is 2 s; it is printed, not
 * asserted, since this machine may be busy: a timing belongs to `npm run bench`.
 */
async function liveAcrossProcesses(browser: Browser, first: Side, startSecond: () => Promise<SecondApi>): Promise<void> {
  step("starting a second API process on the first one's database, with a page of its own");
  const second = await startSecond();
  try {
    step(`the second page is at ${second.origin}, its API at ${second.apiUrl}`);
    for (const [name, watcher, buyingApi] of [
      ["desktop", { ...second, size: DESKTOP }, first.apiUrl],
      ["phone", { ...first, size: PHONE }, second.apiUrl],
    ] as const) {
      step(`The Wooden Amulet watched at ${name} width through ${watcher.apiUrl}, bought through ${buyingApi}: the count follows`);
      await liveAcrossPages(browser, name, watcher, buyingApi);
    }
  } finally {
    await second.stop();
  }
}

/** A page's origin and the API process behind it. */
interface Side {
  origin: string;
  apiUrl: string;
}

async function liveAcrossPages(
  browser: Browser,
  name: string,
  watching: Side & { size: typeof DESKTOP },
  buyingApi: string,
): Promise<void> {
  const watcher = await browser.newPage({ viewport: watching.size });
  const errors: string[] = [];
  try {
    watcher.setDefaultTimeout(STEP_TIMEOUT_MS);
    watcher.on("console", (message) => void (message.type() === "error" && errors.push(message.text())));
    watcher.on("pageerror", (error) => void errors.push(error.message));
    // The other pages' subscriptions, if any, stay as they are: this page's is the one more.
    const held = await subscriptionsHeld(watching.apiUrl, "bookSales");
    await watcher.goto(`${watching.origin}/#/book/${WOODEN_AMULET}`);
    await watcher.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
    // A purchase is announced from the subscription's start on: the page listens, on its own process, before the purchase.
    await untilSubscriptions(watching.apiUrl, "bookSales", held + 1);
    const before = await shownCount(watcher);
    const askedOverHttp: string[] = [];
    watcher.on("request", (request) => void (request.url().includes("/graphql") && askedOverHttp.push(request.url())));
    const bought = Date.now();
    await buy(buyingApi, WOODEN_AMULET, `live-shopper-${name}`);
    await countShown(watcher, before + 1);
    step(`the page showed ${(before + 1).toLocaleString("en")} sold ${Date.now() - bought} ms after the purchase (the issue asks for 2 s)`);
    assert.deepEqual(askedOverHttp, [], "the watching page asked the API nothing: the purchase came over its WebSocket");
    await screenshot(watcher, `book-live-${name}`);
  } finally {
    await watcher.close();
  }
  assert.deepEqual(errors, [], "no console errors on the watching page");
}

async function subscriptionsHeld(apiUrl: string, field: string): Promise<number> {
  return (await scrapeMetrics({ url: apiUrl })).sample("bookstore_subscriptions", `field="${field}"`) ?? 0;
}

/** Resolves once the API holds `count` subscriptions of `field`, as its /metrics counts them. */
async function untilSubscriptions(apiUrl: string, field: string, count: number): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const held = await subscriptionsHeld(apiUrl, field);
    if (held === count) return;
    if (Date.now() > deadline) throw new Error(`the API holds ${held} ${field} subscriptions, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The count the book's page shows. */
async function shownCount(page: Page): Promise<number> {
  return Number(((await page.getByTestId("purchase-count").textContent()) ?? "").replace(/[^0-9]/g, ""));
}

/** Resolves once the book's page shows exactly `count` sold. */
async function countShown(page: Page, count: number): Promise<void> {
  await page
    .getByTestId("purchase-count")
    .filter({ hasText: new RegExp(`^${count.toLocaleString("en")}$`) })
    .waitFor();
}

/**
 * A book page left open while the API process stops and starts again on the same port (on a throwaway database of
 * its own, with the demo catalog): the page says its live updates are paused, then, with no reload and no click,
 * reads the book again from the restarted API, subscribes again and shows a purchase made after the restart.
 */
async function liveThroughRestart(page: Page, origin: string, restartApi: ApiRestart, apiUrl: () => string): Promise<void> {
  step("a book page left open while the API restarts: 'Live updates paused', then caught up and live again, no reload");
  await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
  await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
  await untilSubscriptions(apiUrl(), "bookSales", 1);
  // Gone if the page were loaded again. (Expressions as text: this file is typed without the DOM's globals.)
  await page.evaluate("window.keptOpen = true");
  const start = await restartApi();
  const paused = page.getByTestId("live-paused");
  await paused.waitFor();
  assert.match((await paused.textContent()) ?? "", /Live updates paused — reconnecting/);
  await screenshot(page, "live-paused", { toDocs: true });
  await page.setViewportSize(PHONE);
  await screenshot(page, "live-paused-phone", { toDocs: true });
  await page.setViewportSize(DESKTOP);
  // The API is ready once start() resolves: the socket, tried every 3 s at most, is back well within a step.
  await start();
  await paused.waitFor({ state: "detached" });
  await untilSubscriptions(apiUrl(), "bookSales", 1);
  // Caught up: the restarted API's count, read again when the socket came back.
  const stored = await storedCount(apiUrl(), WOODEN_AMULET);
  await countShown(page, stored);
  await buy(apiUrl(), WOODEN_AMULET, "after-restart-shopper");
  await countShown(page, stored + 1);
  assert.equal(await page.evaluate("window.keptOpen"), true, "the page was never reloaded");
}

async function bestsellersWhileBuying(page: Page, origin: string, apiUrl: string): Promise<void> {
  step("paging the bestsellers while another client buys: no book twice");
  await page.goto(`${origin}/#/`);
  await page.locator("[data-testid=shelf] li").nth(9).waitFor();
  let buying = true;
  const targets = await bestsellerIds(apiUrl, 60);
  const buyer = (async () => {
    for (let index = 0; buying; index += 1) await buy(apiUrl, targets[(index * 7) % targets.length]!, `racing-shopper-${index}`);
  })();
  const seen: string[] = [];
  try {
    for (let window = 0; window < 6; window += 1) {
      const shown = await shownBooks(page);
      seen.push(...shown);
      await page.getByRole("button", { name: "Next →" }).click();
      await page.locator(`[data-testid=shelf] li[data-book-id="${shown[0]}"]`).waitFor({ state: "detached" });
    }
  } finally {
    buying = false;
    await buyer;
  }
  assert.equal(seen.length, 60);
  assert.equal(new Set(seen).size, seen.length, "no book shown twice across the windows");
}

async function phone(page: Page, origin: string): Promise<void> {
  step("the same pages at a phone's width");
  await page.setViewportSize(PHONE);
  await page.goto(`${origin}/#/`);
  // From the first window again: the same hash keeps the page, and with it the window the last step paged to.
  await page.reload();
  await page.locator("[data-testid=shelf] li").nth(9).waitFor();
  assert.deepEqual(await windowShown(page), { label: "1–10 of 3,002 books", ranks: range(1, 10) });
  await screenshot(page, "bestsellers-phone", { toDocs: true });
  await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
  await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
  await page.getByTestId("also-bought").waitFor();
  await screenshot(page, "book-phone", { fullPage: true, toDocs: true });
  await page.setViewportSize(DESKTOP);
}

async function unknownBook(page: Page, origin: string): Promise<void> {
  step("an unknown book: the API's NOT_FOUND in the shopper's words");
  await page.goto(`${origin}/#/book/no-such-book`);
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.equal(await alert.getAttribute("data-code"), "NOT_FOUND");
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => `${from + index}.`);

/** The shelf's label and the ranks beside its books, as the shopper reads them. */
async function windowShown(page: Page): Promise<{ label: string; ranks: string[] }> {
  return {
    label: ((await page.getByTestId("shelf-count").textContent()) ?? "").trim(),
    ranks: (await page.getByTestId("rank").allTextContents()).map((rank) => rank.trim()),
  };
}

/** Runs `during` while every GraphQL answer reaches the page a second late. */
async function slowGraphql(page: Page, during: () => Promise<void>): Promise<void> {
  const delay = async (route: import("playwright-core").Route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Unrouting meanwhile hands a waiting request on by itself; it is then no longer this handler's to continue.
    await route.continue().catch(() => undefined);
  };
  await page.route("**/graphql**", delay);
  try {
    await during();
  } finally {
    await page.unroute("**/graphql**", delay);
  }
}

async function loading(page: Page, origin: string): Promise<void> {
  step("while the first answer is on its way: a skeleton, not a bare 'Loading…'");
  await slowGraphql(page, async () => {
    await page.goto(`${origin}/#/`);
    await page.getByTestId("skeleton").waitFor();
    await screenshot(page, "loading");
  });
  await page.locator("[data-testid=shelf] li").nth(9).waitFor();
}

async function leavingAfterBuy(page: Page, origin: string): Promise<void> {
  step("leaving the book's page right after Buy: nothing uncaught");
  for (const pause of [20, 60, 100]) {
    await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
    await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    await new Promise((resolve) => setTimeout(resolve, pause));
    await page.goto(`${origin}/#/`);
    await page.locator("[data-testid=shelf] li").nth(9).waitFor();
  }
  // Long enough for an abandoned request's rejection to surface, had it been left unhandled.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

async function apiAway(page: Page, origin: string, restartApi: ApiRestart): Promise<void> {
  step("the API stopped: an error state in the shopper's words with a retry; restarted: the page recovers by itself");
  const start = await restartApi();
  await page.goto(`${origin}/#/`);
  // A fresh page: the one open has the bestsellers in its client's cache, which would show them without asking the API.
  await page.reload();
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.equal(await alert.getAttribute("data-code"), "NETWORK");
  assert.match((await alert.textContent()) ?? "", /cannot be reached right now/);
  assert.doesNotMatch((await alert.textContent()) ?? "", /status code|NETWORK/, "no transport detail shown to the shopper");
  await page.getByRole("button", { name: "Try again" }).click();
  await alert.waitFor();
  await screenshot(page, "error", { toDocs: true });
  await page.setViewportSize(PHONE);
  await screenshot(page, "error-phone");
  await page.setViewportSize(DESKTOP);
  await start();
  // No click: the page asks again by itself every few seconds.
  await page
    .locator("[data-testid=shelf] li")
    .nth(9)
    .waitFor({ timeout: 10 * STEP_TIMEOUT_MS });
  assert.equal(await page.getByRole("alert").count(), 0);
}

/** A port nothing listens on now: bound once to learn a free number, then released. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function callApi<T>(apiUrl: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(apiUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TEST_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  if (!body.data || body.errors) throw new Error(`the API refused a request of the test: ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function storedCount(apiUrl: string, bookId: string): Promise<number> {
  const data = await callApi<{ book: { purchaseCount: number } }>(apiUrl, `query ($id: ID!) { book(id: $id) { purchaseCount } }`, {
    id: bookId,
  });
  return data.book.purchaseCount;
}

/** The books a customer bought, in the API's order (book ids), as the back office reads them. */
async function booksOf(apiUrl: string, customerId: string): Promise<string[]> {
  const query = `query ($id: ID!) { customer(id: $id) { booksPurchased(first: 100) { edges { node { databaseId } } } } }`;
  const data = await callApi<{ customer: { booksPurchased: { edges: { node: { databaseId: string } }[] } } }>(apiUrl, query, {
    id: customerId,
  });
  return data.customer.booksPurchased.edges.map((edge) => edge.node.databaseId);
}

/** A bestseller the customer never bought, so that buying it adds a book to their My books. */
async function bookNotBoughtBy(apiUrl: string, customerId: string): Promise<string> {
  const owned = new Set(await booksOf(apiUrl, customerId));
  const book = (await bestsellerIds(apiUrl, 50)).find((id) => !owned.has(id));
  if (!book) throw new Error(`${customerId} bought all of the 50 bestsellers: pick another shopper`);
  return book;
}

async function bestsellerIds(apiUrl: string, first: number): Promise<string[]> {
  const query = `query ($first: Int) { books(first: $first, orderBy: {field: PURCHASE_COUNT, direction: DESC}) { edges { node { databaseId } } } }`;
  const data = await callApi<{ books: { edges: { node: { databaseId: string } }[] } }>(apiUrl, query, { first });
  return data.books.edges.map((edge) => edge.node.databaseId);
}

async function buy(apiUrl: string, bookId: string, customerId: string): Promise<void> {
  await callApi(apiUrl, `mutation ($input: RecordPurchaseInput!) { recordPurchase(input: $input) { storedIn } }`, {
    input: { bookId, customerId },
  });
}

main().then(
  () => step(`passed; screenshots in ${SCREENSHOTS}`),
  (error: unknown) => {
    console.error(`browser test failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
