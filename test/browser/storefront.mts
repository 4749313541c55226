import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { build, preview, type PreviewServer } from "vite";

/**
 * `npm run test:browser`: the web storefront example in Debian's Chromium, against the API on its
 * throwaway database with the demo catalog, as a developer would open it. Builds the page, starts the
 * API and the page, then drives the browser through the bestsellers, the search, an author's page and
 * the outlier *The Wooden Amulet*, at desktop and phone widths, failing on any console error.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const EXAMPLE = join(ROOT, "examples", "web-storefront");
const SCREENSHOTS = join(EXAMPLE, "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WOODEN_AMULET = "2";
// Far longer than any step takes on a busy machine: a step that waits this long is broken, not slow.
const STEP_TIMEOUT_MS = 60_000;

const step = (text: string) => console.log(`browser test: ${text}`);

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium), or set CHROMIUM_PATH to one.`);
  }
  step("building the web storefront (vite build)");
  await build({ root: EXAMPLE, configFile: join(EXAMPLE, "vite.config.ts"), logLevel: "warn" });
  step("starting the API on its throwaway database with the demo catalog");
  const api = await startApi();
  let page: PreviewServer | undefined;
  try {
    // The proxy in vite.config.ts reads API_URL when the configuration loads.
    process.env.API_URL = api.url;
    page = await preview({
      root: EXAMPLE,
      configFile: join(EXAMPLE, "vite.config.ts"),
      preview: { port: await freePort(), strictPort: true },
    });
    const origin = page.resolvedUrls?.local[0] ?? "";
    step(`the page is at ${origin}, the API at ${api.url}`);
    await driveBrowser(origin, api.url);
  } finally {
    await page?.close();
    await api.stop();
  }
}

async function startApi(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  // No response cache: the test reads counts right after buying, as a storefront's payload does.
  const env = { ...process.env, PORT: String(port), CATALOG_MAX_AGE_SECONDS: "0", NODE_ENV: "development", LOG_LEVEL: "warn" };
  // Its warnings (LOG_LEVEL=warn) reach this run's output, so that a failure to start says why.
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/start.ts"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  try {
    await untilListening(child, port);
    return { url: `http://127.0.0.1:${port}/graphql`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

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

async function driveBrowser(origin: string, apiUrl: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Chromium's sandbox needs user namespaces that a root user in a container often lacks.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: DESKTOP });
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const consoleErrors: string[] = [];
    page.on("console", (message) => void (message.type() === "error" && consoleErrors.push(message.text())));
    page.on("pageerror", (error) => void consoleErrors.push(error.message));
    await bestsellers(page, origin, apiUrl);
    await search(page, origin);
    await authorPage(page);
    await woodenAmulet(page, origin, apiUrl);
    await bestsellersWhileBuying(page, origin, apiUrl);
    await phone(page, origin);
    assert.deepEqual(consoleErrors, [], "no console errors on any page");
    await unknownBook(page, origin);
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
  await page.screenshot({ path: join(SCREENSHOTS, "bestsellers.png") });
  await page.getByRole("button", { name: "Next →" }).click();
  await page.locator(`[data-testid=shelf] li[data-book-id="${expected[10]}"]`).waitFor();
  assert.deepEqual(await shownBooks(page), expected.slice(10, 20), "the next window replaces the first, never merged into it");
  await page.getByRole("button", { name: "← Previous" }).click();
  await page.locator(`[data-testid=shelf] li[data-book-id="${expected[0]}"]`).waitFor();
  assert.deepEqual(await shownBooks(page), expected.slice(0, 10));
}

async function search(page: Page, origin: string): Promise<void> {
  step('the search box answers as the shopper types: "amulet" finds The Wooden Amulet');
  await page.goto(`${origin}/#/`);
  await page.getByRole("searchbox").pressSequentially("amulet", { delay: 40 });
  await page.getByRole("heading", { name: "Books matching “amulet”" }).waitFor();
  await page.locator(`[data-testid=shelf] li[data-book-id="${WOODEN_AMULET}"]`).filter({ hasText: "The Wooden Amulet" }).waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, "search.png") });
}

async function authorPage(page: Page): Promise<void> {
  step("an author's page, from the book's byline in the search results");
  await page.locator(`[data-testid=shelf] li[data-book-id="${WOODEN_AMULET}"]`).getByRole("link", { name: "Lesley Moreno" }).click();
  await page.getByTestId("author-name").filter({ hasText: "Lesley Moreno" }).waitFor();
  await page.locator(`[data-testid=shelf] li[data-book-id="${WOODEN_AMULET}"]`).waitFor();
  assert.match((await page.getByTestId("shelf-count").textContent()) ?? "", /^\d+ books?/);
}

async function woodenAmulet(page: Page, origin: string, apiUrl: string): Promise<void> {
  step("The Wooden Amulet: its count, its newest buyers a window at a time, older and newer");
  await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
  await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
  await agreed(page);
  const buyers = page.locator("[data-testid=buyers] li");
  const newest = await buyers.allTextContents();
  assert.equal(newest.length, 10);
  await page.getByRole("button", { name: "Older →" }).click();
  await page.locator("[data-testid=buyers] li", { hasText: newest[0]! }).waitFor({ state: "detached" });
  const older = await buyers.allTextContents();
  assert.equal(older.length, 10);
  assert.equal(new Set([...newest, ...older]).size, 20, "the older window follows the newest, no buyer in both");
  await page.getByRole("button", { name: "← Newer" }).click();
  await page.locator("[data-testid=buyers] li", { hasText: newest[0]! }).first().waitFor();

  step("buying it: the count and the buyers agree, and sending the same order line again buys nothing");
  const before = await agreed(page);
  await page.getByRole("button", { name: "Buy", exact: true }).click();
  await page.getByTestId("purchase-outcome").filter({ hasText: "Bought" }).waitFor();
  await page
    .getByTestId("purchase-count")
    .filter({ hasText: (before + 1).toLocaleString("en") })
    .waitFor();
  assert.equal(await agreed(page), before + 1);
  assert.equal(await buyers.first().textContent(), "web-shopper", "the newest buyer is the one who just bought");
  await page.getByRole("button", { name: "Send again" }).click();
  await page.getByTestId("purchase-outcome").filter({ hasText: "Already bought" }).waitFor();
  assert.equal(await agreed(page), before + 1);
  assert.equal(await storedCount(apiUrl), before + 1, "the database holds one purchase more, not two");
  await page.screenshot({ path: join(SCREENSHOTS, "book.png") });
}

/** The count the page shows, once it equals the buyers' total beside it. */
async function agreed(page: Page): Promise<number> {
  const read = async (testId: string) => Number(((await page.getByTestId(testId).textContent()) ?? "").replace(/[^0-9]/g, ""));
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const [count, total] = [await read("purchase-count"), await read("buyer-total")];
    if (count === total) return count;
    if (Date.now() > deadline) throw new Error(`the page shows ${count} sold but ${total} buyers`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
  await page.locator("[data-testid=shelf] li").nth(9).waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, "bestsellers-phone.png") });
  await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
  await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
  await page.locator("[data-testid=buyers] li").nth(9).waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, "book-phone.png"), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

async function unknownBook(page: Page, origin: string): Promise<void> {
  step("an unknown book: the API's NOT_FOUND in the shopper's words");
  await page.goto(`${origin}/#/book/no-such-book`);
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.equal(await alert.getAttribute("data-code"), "NOT_FOUND");
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
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  if (!body.data || body.errors) throw new Error(`the API refused a request of the test: ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function storedCount(apiUrl: string): Promise<number> {
  const data = await callApi<{ book: { purchaseCount: number } }>(apiUrl, `query ($id: ID!) { book(id: $id) { purchaseCount } }`, {
    id: WOODEN_AMULET,
  });
  return data.book.purchaseCount;
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
