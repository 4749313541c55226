import type { Db, Document, MongoClient } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { extraSalesCollection, salesCollection } from "../../src/sales/documents";
import { createIndexes, indexLabel } from "../../src/db/indexes";
import { insertBooksWithPurchases, type BookWithPurchases, type BulkProgress } from "../../src/maintenance/bulk";
import { salesIndexes } from "../../src/sales/indexes";
import { loadCatalog } from "../../src/maintenance/demo-catalog";
import { catalogWords, measureSearchFuzz, searchCatalogSpec, searchFuzzSet } from "../../test/support/search-fuzz";
import { customerId, customerIds } from "../kit/catalog";
import { summarize, type OperationFigures } from "../kit/figures";
import { graphql, load, post, withServer } from "../kit/http";
import { BOOK_BUYERS, BROWSE_BOOKS, LIST_BOOKS, RECORD_PURCHASE } from "./shelf";
import { bookViolations } from "../kit/invariants";
import type { CommandMonitor } from "../kit/monitor";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { percentile } from "../kit/stats";

// Every book but the outlier holds the same few purchases, so that the first books a listing shows are alike at every size.
const SHELF_PURCHASES = 6;
const OUTLIER_PURCHASES = 100_000;
const BUYERS_WINDOW = 20;
const DEEP_POSITION = 90_000;
const LISTING = { first: 5, buyers: 5 };
const SEED_STEPS = 10;
const HOT_CLIENTS = 64;
// Off first: the book's pages then hold the same purchases whichever way the second load writes.
const HOT_BOOK_BATCHING = [false, true];

/** One request of one kind at one catalog size: times over its samples, and the exact costs of one such request. */
export interface ScaleRow {
  books: number;
  scenario: string;
  figures: OperationFigures;
  /** From `explain("executionStats")` of every read the request sent; a write's filter is explained as the find that locates its document. */
  keysExamined: number;
  docsExamined: number;
}

export interface HotBookFigures {
  /** Whether the API shared the writes of concurrent purchases of the book (PURCHASE_BATCHING). */
  batching: boolean;
  /** Every purchase carried a purchaseId, on a replica set: each a transaction, or one per shared write. */
  keyedOnReplicaSet: boolean;
  clients: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Purchases answered with an error, in a 200's body or as an HTTP status, or not answered at all. */
  failures: number;
  /** The failed purchases by their error's `extensions.code` (NO_ANSWER when autocannon had none). */
  failureCodes: Record<string, number>;
  /** Database commands per purchase under the load: every one a write, but the page reads that find room for a batch. */
  commandsPerPurchase: number;
  /** Purchases per shared write, from the API's own histogram; 1 when every purchase wrote alone. */
  purchasesPerWrite: number;
}

/** Issue 35's fuzz set of searches on a generated catalog of real words of one size, counted with explain. */
export interface SearchFuzzRow {
  books: number;
  searches: number;
  answered: number;
  /** Refused with SEARCH_TOO_BROAD before reading a window. */
  refused: number;
  /** The most documents any search examined per book its windows asked for (its count and next window included). */
  maxDocsPerResult: number;
  /** Searches over the target, each with the documents its reads examined. */
  over: string[];
}

export interface IndexCost {
  /** Median time of an embedded purchase with the largest-books index and without it, interleaved in one run. */
  withIndexMs: number;
  withoutIndexMs: number;
}

export interface ScaleResults {
  rows: ScaleRow[];
  /** The same load on one outlier with batching off, then on, in one run. */
  hotBooks: HotBookFigures[];
  indexCost: IndexCost;
  searchFuzz: SearchFuzzRow[];
  violations: string[];
}

export const SCALE_SCENARIOS = [
  "storefront listing",
  "bestsellers window",
  "an author's books",
  "search",
  "a book's first buyers",
  "deep buyers window",
  "embedded purchase",
  "extra-sales purchase",
] as const;
type ScenarioName = (typeof SCALE_SCENARIOS)[number];

export function scaleSteps(plan: Plan["scale"]): number {
  return plan.catalogSizes.length * (2 * LOAD_STEPS + SCALE_SCENARIOS.length + 1) + 1 + 2 * HOT_BOOK_BATCHING.length;
}

/** A catalog of this many books on the replica set, the last of them the outlier its keyed buyers crowd. */
const KEYED_CATALOG = 102;

type OpenDatabase = (
  suffix: string,
  options?: { indexes?: boolean },
) => Promise<{ client: MongoClient; db: Db; monitor: CommandMonitor; close(): Promise<void> }>;

/**
 * The API's eight typical requests on catalogs of each size, each seeded in this run: the outlier is
 * the last book, every other book holds SHELF_PURCHASES purchases. Then 64 clients buying the outlier at once,
 * with the API writing each purchase alone and then sharing the writes of concurrent ones; and the
 * same with a purchaseId on every purchase, on a replica set (`openReplicaSet`), where each is a transaction.
 * At each size too, issue 35's fuzz set of searches on a generated catalog of real words (`measureSearchCatalog`).
 */
export async function benchmarkScale(
  open: OpenDatabase,
  openReplicaSet: OpenDatabase,
  settings: OutlierSettings,
  plan: Plan["scale"],
  progress: Progress,
): Promise<ScaleResults> {
  const rows: ScaleRow[] = [];
  const violations: string[] = [];
  const hotBooks: HotBookFigures[] = [];
  const searchFuzz: SearchFuzzRow[] = [];
  let indexCost: IndexCost | undefined;
  for (const books of plan.catalogSizes) {
    // Names of one length: every command carries its database's name, and bytes must compare sizes alone.
    const database = await open(`catalog_${String(books).padStart(7, "0")}`, { indexes: false });
    const { monitor } = database;
    try {
      await loadThenIndex(database.db, `${books.toLocaleString("en")} books`, books, progress, (onProgress) =>
        insertBooksWithPurchases(database.db, catalog(books), settings, onProgress),
      );
      await withServer(database.db, settings, true, async (url) => {
        for (const scenario of SCALE_SCENARIOS) {
          rows.push(await measureScenario(database.db, url, monitor, books, scenario, plan));
          progress.step(`${books.toLocaleString("en")} books: ${scenario}`);
        }
        if (books === plan.catalogSizes[0]) {
          indexCost = await measureIndexCost(database.db, url, monitor, books, plan);
          progress.step("purchase with and without the largest-books index");
          for (const batching of HOT_BOOK_BATCHING) {
            const hot = await withServer(
              database.db,
              settings,
              true,
              (hotUrl) => measureHotBook(database.db, monitor, hotUrl, books, settings, plan, batching, false),
              batching,
            );
            hotBooks.push(hot.figures);
            violations.push(...hot.violations);
            progress.step(`${HOT_CLIENTS} clients buying one outlier, batching ${batching ? "on" : "off"}`);
          }
        }
      });
    } finally {
      await database.close();
    }
    // After the size's own catalog is dropped, so that the database never holds two of the largest.
    searchFuzz.push(await measureSearchCatalog(open, books, settings, progress));
  }
  const keyed = await measureKeyedHotBook(openReplicaSet, settings, plan, progress);
  return {
    rows,
    hotBooks: [...hotBooks, ...keyed.hotBooks],
    indexCost: indexCost!,
    searchFuzz,
    violations: [...violations, ...keyed.violations],
  };
}

/**
 * The fuzz set of test/sales/search-cost.test.ts on a catalog of `books` generated books of real words (the bench's
 * own catalog titles every book alike): its words and prefixes drawn from this catalog, each search's window, count
 * and next window explained. A count, not a time: exact on any machine.
 */
async function measureSearchCatalog(open: OpenDatabase, books: number, settings: OutlierSettings, progress: Progress) {
  const database = await open(`search_${String(books).padStart(7, "0")}`, { indexes: false });
  try {
    // The generated books plus the manual's two: `books` in all, as the size's own catalog.
    await loadThenIndex(database.db, `${books.toLocaleString("en")} books of real words`, books, progress, (onProgress) =>
      loadCatalog(database.db, searchCatalogSpec(books - 2), settings, onProgress),
    );
    const figures = await measureSearchFuzz(database.client, database.db, searchFuzzSet(await catalogWords(database.db)));
    progress.step(`${books.toLocaleString("en")} books of real words: ${figures.searches} searches explained`);
    const over = figures.over.map(
      ({ search, first, field, examined }) => `"${search}" first ${first} by ${field}: ${examined.join("+")} docs`,
    );
    return { books, ...figures, over };
  } finally {
    await database.close();
  }
}

/** The hot book again with a purchaseId on every purchase, on a replica set: batching off, then on. */
async function measureKeyedHotBook(openReplicaSet: OpenDatabase, settings: OutlierSettings, plan: Plan["scale"], progress: Progress) {
  const replicaSet = await openReplicaSet("keyed");
  const hotBooks: HotBookFigures[] = [];
  const violations: string[] = [];
  try {
    await insertBooksWithPurchases(replicaSet.db, catalog(KEYED_CATALOG), settings);
    for (const batching of HOT_BOOK_BATCHING) {
      const measure = (url: string) =>
        measureHotBook(replicaSet.db, replicaSet.monitor, url, KEYED_CATALOG, settings, plan, batching, true);
      const hot = await withServer(replicaSet.db, settings, true, measure, batching);
      hotBooks.push(hot.figures);
      violations.push(...hot.violations);
      progress.step(`${HOT_CLIENTS} clients buying one outlier with purchaseIds on a replica set, batching ${batching ? "on" : "off"}`);
    }
  } finally {
    await replicaSet.close();
  }
  return { hotBooks, violations };
}

/** The steps a catalog's load shows: its books stored, a tenth at a time, then each sales index built. */
const LOAD_STEPS = SEED_STEPS + salesIndexes().length;

/**
 * Stores a catalog with no index but `_id`'s, then builds the sales indexes over it one by one, as mongorestore does: a
 * database builds an index over stored documents by sorting their keys once (mongod's hybrid build; the stand-in's
 * too), where keeping it up to date insert by insert searches it for every key (the 1,000,002-book catalogs took hours
 * so). The indexes hold the same keys either way, so every count measured after is the same.
 */
async function loadThenIndex(
  db: Db,
  label: string,
  books: number,
  progress: Progress,
  load: (onProgress: (written: BulkProgress) => void) => Promise<unknown>,
): Promise<void> {
  const perStep = Math.ceil(books / SEED_STEPS);
  let reported = 0;
  await load(({ books: written }) => {
    while (reported < SEED_STEPS - 1 && written >= (reported + 1) * perStep) {
      reported += 1;
      progress.step(`${label}: ${written.toLocaleString("en")} stored`);
    }
  });
  for (; reported < SEED_STEPS; reported += 1) progress.step(`${label}: all stored`);
  for (const index of salesIndexes()) {
    await createIndexes(db, [index]);
    progress.step(`${label}: index ${indexLabel(index)} built`);
  }
}

function* catalog(books: number): Generator<BookWithPurchases> {
  for (let id = 1; id < books; id += 1) yield { book: benchBook(id), customers: customerIds("shelf-", SHELF_PURCHASES) };
  yield { book: benchBook(books), customers: customerIds("outlier-", OUTLIER_PURCHASES) };
}

/** Books 1 to SEARCHED_BOOKS hold this word in their title: the search finds as many at every catalog size. */
const SEARCHED_WORD = "amulet";
const SEARCHED_BOOKS = 10;
/** Each author writes this many consecutive books, so that an author's books are as many at every catalog size. */
const BOOKS_PER_AUTHOR = 5;

/** Titles and authors of one length, so that books differ in bytes only by their purchases. */
const benchBook = (id: number) => ({
  id,
  title: `Bench ${id <= SEARCHED_BOOKS ? SEARCHED_WORD : "volume"}`,
  author: `Author ${String(Math.ceil(id / BOOKS_PER_AUTHOR)).padStart(7, "0")}`,
});

/** The body of request number `index` of a scenario; purchases use a new customer (and, embedded, a book with room) each time. */
function requestBody(scenario: ScenarioName, books: number, index: number): string {
  switch (scenario) {
    case "storefront listing":
      return graphql(LIST_BOOKS, LISTING);
    case "bestsellers window":
      return graphql(BROWSE_BOOKS, { first: LISTING.first, orderBy: { field: "PURCHASE_COUNT", direction: "DESC" } });
    case "an author's books":
      return graphql(BROWSE_BOOKS, {
        first: LISTING.first,
        filter: { author: benchBook(1).author },
        orderBy: { field: "PURCHASE_COUNT", direction: "DESC" },
      });
    case "search":
      return graphql(BROWSE_BOOKS, { first: LISTING.first, search: SEARCHED_WORD });
    case "a book's first buyers":
      return graphql(BOOK_BUYERS, { id: String(books), first: BUYERS_WINDOW });
    case "deep buyers window":
      return graphql(BOOK_BUYERS, { id: String(books), first: BUYERS_WINDOW, after: customerCursor(DEEP_POSITION - 1) });
    case "embedded purchase":
      // Books 6 on are not listed; each takes one purchase, so none fills up.
      return graphql(RECORD_PURCHASE, { bookId: String(6 + index), customerId: customerId("buyer-", index) });
    case "extra-sales purchase":
      return graphql(RECORD_PURCHASE, { bookId: String(books), customerId: customerId("buyer-", index) });
  }
}

async function measureScenario(
  db: Db,
  url: string,
  monitor: CommandMonitor,
  books: number,
  scenario: ScenarioName,
  plan: Plan["scale"],
): Promise<ScaleRow> {
  let index = 0;
  const send = async () => {
    const reply = (await post(url, requestBody(scenario, books, index++))) as { errors?: unknown };
    if (reply.errors) throw new Error(`bench request failed: ${JSON.stringify(reply.errors)}`);
  };
  for (let run = 0; run < plan.warmup; run += 1) await send();
  const samples = [];
  for (let run = 0; run < plan.repetitions; run += 1) samples.push(await monitor.measure(send));
  const examined = await explainAll(db, await monitor.record(send));
  return { books, scenario, figures: summarize(samples), ...examined };
}

/** Keys and documents examined by the commands, summed, as mongod's (or the stand-in's) explain reports them. */
async function explainAll(
  db: Db,
  commands: { commandName: string; command: Document }[],
): Promise<{ keysExamined: number; docsExamined: number }> {
  let keysExamined = 0;
  let docsExamined = 0;
  for (const query of commands.flatMap(explainableQueries)) {
    const stats = executionStats(await db.command({ explain: query, verbosity: "executionStats" }));
    keysExamined += stats.totalKeysExamined;
    docsExamined += stats.totalDocsExamined;
  }
  return { keysExamined, docsExamined };
}

/** The read each command runs: itself for find, count and aggregate; for a write, the find of one document its filter names. */
function explainableQueries({ commandName, command }: { commandName: string; command: Document }): Document[] {
  const own = Object.fromEntries(Object.entries(command).filter(([key]) => !key.startsWith("$") && key !== "lsid" && key !== "txnNumber"));
  switch (commandName) {
    case "find":
    case "count":
    case "aggregate":
      return [own];
    case "findAndModify":
      return [{ find: command.findAndModify, filter: command.query, limit: 1 }];
    case "update":
      return (command.updates as Document[]).map((statement) => ({ find: command.update, filter: statement.q, limit: 1 }));
    default:
      throw new Error(`the bench does not know how to explain ${commandName}`);
  }
}

/** executionStats wherever the explain output keeps it: at the top, or under an aggregation's first `$cursor` stage. */
function executionStats(explained: Document): { totalKeysExamined: number; totalDocsExamined: number } {
  const stats = (explained.executionStats ?? explained.stages?.[0]?.$cursor?.executionStats) as Document | undefined;
  if (!stats) throw new Error(`explain without executionStats: ${JSON.stringify(explained).slice(0, 200)}`);
  return { totalKeysExamined: Number(stats.totalKeysExamined), totalDocsExamined: Number(stats.totalDocsExamined) };
}

/** Embedded purchases with and without the `(purchase_count desc, _id)` index, alternating in rounds so drift falls on both alike. */
async function measureIndexCost(db: Db, url: string, monitor: CommandMonitor, books: number, plan: Plan["scale"]): Promise<IndexCost> {
  const withIndex = [];
  const withoutIndex = [];
  let index = 1_000_000;
  const buy = () => post(url, requestBody("embedded purchase", books, index++ % (books - 6)));
  for (let round = 0; round < 4; round += 1) {
    withIndex.push(...(await sample(monitor, buy, plan.repetitions)));
    await salesCollection(db).dropIndex("purchase_count_-1__id_1");
    withoutIndex.push(...(await sample(monitor, buy, plan.repetitions)));
    await salesCollection(db).createIndex({ purchase_count: -1, _id: 1 }, { name: "purchase_count_-1__id_1" });
  }
  return { withIndexMs: percentile(withIndex, 50), withoutIndexMs: percentile(withoutIndex, 50) };
}

async function sample(monitor: CommandMonitor, operation: () => Promise<unknown>, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < count; run += 1) times.push((await monitor.measure(operation)).ms);
  return times;
}

/**
 * HOT_CLIENTS connections buying the outlier as fast as they are answered. Every acknowledged purchase
 * must be stored exactly once; one whose request failed (a timeout under this load) may be stored or
 * not, but never twice, and nothing else may appear.
 */
async function measureHotBook(
  db: Db,
  monitor: CommandMonitor,
  url: string,
  books: number,
  settings: OutlierSettings,
  plan: Plan["scale"],
  batching: boolean,
  keyedOnReplicaSet: boolean,
) {
  const before = await storedCustomers(db, books);
  const prefix = `hot-${keyedOnReplicaSet ? "keyed-" : ""}${batching ? "on" : "off"}-`;
  const acknowledged = new Set<string>();
  const failureCodes: Record<string, number> = {};
  let sent = 0;
  await monitor.quiet();
  const commandsBefore = monitor.snapshot().commands;
  const result = await load(
    url,
    {
      name: "hot book",
      body: (_index, connection) => {
        const customer = customerId(prefix, sent++);
        Object.assign(connection, { customer });
        const purchaseId = keyedOnReplicaSet ? { purchaseId: customer } : {};
        return graphql(RECORD_PURCHASE, { bookId: String(books), customerId: customer, ...purchaseId });
      },
    },
    { connections: HOT_CLIENTS, amount: plan.hotBookRequests, timeout: 60 },
    (status, body, connection) => {
      const { customer } = connection as { customer?: string };
      const code = failureCode(status, body);
      if (code === undefined && customer) acknowledged.add(customer);
      else if (code !== undefined) failureCodes[code] = (failureCodes[code] ?? 0) + 1;
    },
  );
  await monitor.quiet();
  const commands = monitor.snapshot().commands - commandsBefore;
  return {
    figures: {
      batching,
      keyedOnReplicaSet,
      clients: HOT_CLIENTS,
      requests: result.requests.total,
      requestsPerSecond: result.requests.total / result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      failures: Object.values(failureCodes).reduce((sum, times) => sum + times, result.errors),
      failureCodes: { ...failureCodes, ...(result.errors > 0 ? { NO_ANSWER: result.errors } : {}) },
      commandsPerPurchase: commands / result.requests.total,
      purchasesPerWrite: await meanPurchasesPerWrite(url),
    },
    violations: await hotBookViolations(db, books, before, acknowledged, prefix, sent, settings),
  };
}

/** The `extensions.code` of a purchase's error, or undefined when it was acknowledged. */
function failureCode(status: number, body: string): string | undefined {
  let errors: { extensions?: { code?: string } }[] | undefined;
  try {
    errors = (JSON.parse(body) as { errors?: typeof errors }).errors;
  } catch {
    return `HTTP_${status}`;
  }
  if (status === 200 && !errors) return undefined;
  return errors?.[0]?.extensions?.code ?? `HTTP_${status}`;
}

/** The mean of the API's purchase batch histogram: purchases carried over shared writes; 1 when none was shared. */
async function meanPurchasesPerWrite(url: string): Promise<number> {
  const text = await (await fetch(url.replace(/\/graphql$/, "/metrics"))).text();
  const sample = (name: string) =>
    Number(
      text
        .split("\n")
        .find((line) => line.startsWith(`${name} `))
        ?.split(" ")[1] ?? Number.NaN,
    );
  const [purchases, writes] = [sample("bookstore_purchase_batch_size_sum"), sample("bookstore_purchase_batch_size_count")];
  return writes > 0 ? purchases / writes : 1;
}

async function hotBookViolations(
  db: Db,
  bookId: number,
  before: string[],
  acknowledged: Set<string>,
  prefix: string,
  sent: number,
  settings: OutlierSettings,
) {
  const added = (await storedCustomers(db, bookId)).slice(before.length);
  const wasSent = new Set(customerIds(prefix, sent));
  const problems = [
    ...[...acknowledged].filter((customer) => !added.includes(customer)).map((customer) => `acknowledged purchase ${customer} lost`),
    ...added.filter((customer, index) => added.indexOf(customer) !== index).map((customer) => `purchase ${customer} stored twice`),
    ...added.filter((customer) => !wasSent.has(customer)).map((customer) => `purchase ${customer} never sent`),
  ].map((problem) => `book ${bookId}: ${problem}`);
  return [...problems, ...(await bookViolations(db, bookId, [...before, ...added], settings))];
}

/** Every purchase of a book, embedded then page by page. */
async function storedCustomers(db: Db, bookId: number): Promise<string[]> {
  const book = await salesCollection(db).findOne({ _id: bookId });
  const pages = await extraSalesCollection(db).find({ book_id: bookId }).sort({ page: 1 }).toArray();
  return [...(book?.customers_purchased ?? []), ...pages.flatMap((page) => page.customers_purchased_extra)];
}
