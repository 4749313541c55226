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
 * embedded database with the demo catalog, as a developer would open it. Builds the page, starts the
 * API and the page, then drives the browser through the catalog and the outlier *The Wooden Amulet*.
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
  step("starting the API on its embedded database with the demo catalog");
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
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    await catalog(page, origin);
    await woodenAmulet(page, origin, apiUrl);
    await unknownBook(page, origin);
  } finally {
    await browser.close();
  }
}

async function catalog(page: Page, origin: string): Promise<void> {
  step("the catalog, a page at a time");
  await page.goto(`${origin}/#/`);
  const books = page.locator("[data-testid=catalog] li");
  await books.nth(9).waitFor();
  assert.equal(await books.count(), 10);
  assert.match((await page.getByTestId("catalog-count").textContent()) ?? "", /3,002 books/);
  await page.getByRole("button", { name: "More books" }).click();
  await books.nth(19).waitFor();
  const ids = await books.evaluateAll((items) => items.map((item) => item.getAttribute("data-book-id")));
  assert.equal(new Set(ids).size, 20, "no book twice after paging forward");
  await page.screenshot({ path: join(SCREENSHOTS, "catalog.png") });
}

async function woodenAmulet(page: Page, origin: string, apiUrl: string): Promise<void> {
  step("The Wooden Amulet: every buyer, past the 50 embedded into extra_sales");
  await page.goto(`${origin}/#/book/${WOODEN_AMULET}`);
  await page.getByTestId("title").filter({ hasText: "The Wooden Amulet" }).waitFor();
  const buyers = page.locator("[data-testid=buyers] li");
  const more = page.getByRole("button", { name: "Load more buyers" });
  for (let shown = 100; shown < 1_000; shown += 100) {
    await more.click();
    await buyers.nth(shown).waitFor();
  }
  await more.waitFor({ state: "detached" });
  const ids = await buyers.allTextContents();
  assert.equal(ids.length, 1_000, "all 1,000 buyers shown");
  assert.equal(new Set(ids).size, 1_000, "no buyer twice");
  await page.getByRole("button", { name: "Newest first" }).click();
  const newest = (await page.getByTestId("newest-buyers").textContent())?.split(", ") ?? [];
  assert.deepEqual(newest, ids.slice(-10).reverse(), "newest first: the last ten buyers, last first");
  await page.getByTestId("title").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, "book.png") });

  step("buying it: the count goes up by one, and sending the same order line again buys nothing");
  const count = page.getByTestId("purchase-count");
  const before = Number(await count.textContent());
  await page.getByRole("button", { name: "Buy" }).click();
  await page.getByTestId("purchase-outcome").filter({ hasText: "Bought" }).waitFor();
  assert.equal(Number(await count.textContent()), before + 1);
  await page.getByRole("button", { name: "Send again" }).click();
  await page.getByTestId("purchase-outcome").filter({ hasText: "Already bought" }).waitFor();
  assert.equal(Number(await count.textContent()), before + 1);
  assert.equal(await storedCount(apiUrl), before + 1, "the database holds one purchase more, not two");
  await page.screenshot({ path: join(SCREENSHOTS, "bought.png") });
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

async function storedCount(apiUrl: string): Promise<number> {
  const response = await fetch(apiUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `{ book(id: "${WOODEN_AMULET}") { purchaseCount } }` }),
  });
  return ((await response.json()) as { data: { book: { purchaseCount: number } } }).data.book.purchaseCount;
}

main().then(
  () => step(`passed; screenshots in ${SCREENSHOTS}`),
  (error: unknown) => {
    console.error(`browser test failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
