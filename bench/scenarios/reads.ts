import type { Db } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { retrieveBuyersWindow } from "../../src/sales/book-buyers";
import { createSalesLoaders } from "../../src/sales/loaders";
import { readPageAsChapter, type PageOfCustomers } from "../kit/baselines";
import { customerId, customerIds, seedBook } from "../kit/catalog";
import { sampleRepeatedly, summarize, type OperationFigures, type Repetition } from "../kit/figures";
import type { CommandMonitor } from "../kit/monitor";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { median, ratio, sum } from "../kit/stats";

export const FIRST_PAGE = 20;
export const WHOLE_LIST_PAGE = 100;
const CUSTOMER_PREFIX = "reader-";
// Beyond this many entries loaded in all, the chapter's whole-list read is sampled and projected instead of run.
const CHAPTER_WHOLE_LIST_LIMIT = 2_000_000;

export type PageReader = (db: Db, bookId: number, start: number, first: number) => Promise<PageOfCustomers>;

export interface PageReadRow {
  purchases: number;
  window: "first window" | "deep window (90%)";
  start: number;
  api: OperationFigures;
  chapter: OperationFigures;
  chapterOverApi: number;
}

export interface WholeListFigures {
  requests: number;
  /** Requests actually run; fewer than `requests` means the totals are projected from them. */
  measuredRequests: number;
  totalMs: number;
  medianMs: number;
  commands: number;
  maxCommands: number;
  bytesReceived: number;
}

export interface WholeListRow {
  purchases: number;
  api: WholeListFigures;
  chapter: WholeListFigures;
  chapterOverApi: number;
}

export interface ReadResults {
  pages: PageReadRow[];
  wholeLists: WholeListRow[];
  violations: string[];
}

/** The API's read path for one request: a fresh set of loaders, the book, then the pages holding the window. */
export const readPageAsApi: PageReader = async (db, bookId, start, first) => {
  const loaders = createSalesLoaders(db);
  const book = await loaders.book.load(bookId);
  if (!book) throw new Error(`bench book ${bookId} is missing`);
  const page = await retrieveBuyersWindow((window) => loaders.extraSalesWindow.load(window), book, {
    after: start === 0 ? null : start - 1,
    before: null,
    first,
  });
  return { customers: page.buyers.map((buyer) => buyer.customerId), hasNextPage: page.hasNextPage };
};

export function readSteps(plan: Plan["reads"]): number {
  // Per book: stored, first window, deep window, whole list.
  return plan.purchases.length * 4;
}

export async function benchmarkReads(
  db: Db,
  monitor: CommandMonitor,
  settings: OutlierSettings,
  plan: Plan["reads"],
  progress: Progress,
): Promise<ReadResults> {
  const results: ReadResults = { pages: [], wholeLists: [], violations: [] };
  const repetition: Repetition = { warmup: plan.warmup, repetitions: plan.repetitions, budgetMs: plan.budgetMs };
  for (const purchases of plan.purchases) {
    // The book's id is its size: integers of one BSON type, so byte counts differ only by layout.
    await seedBook(db, purchases, customerIds(CUSTOMER_PREFIX, purchases), settings);
    progress.step(`${purchases.toLocaleString("en")} purchases: book stored`);
    const check = windowChecker(purchases, results.violations);
    for (const [window, start] of [
      ["first window", 0],
      ["deep window (90%)", Math.floor(purchases * 0.9)],
    ] as const) {
      const sample = (read: PageReader) =>
        sampleRepeatedly(monitor, async () => check(start, FIRST_PAGE, await read(db, purchases, start, FIRST_PAGE)), repetition);
      const api = summarize(await sample(readPageAsApi));
      const chapter = summarize(await sample(readPageAsChapter));
      results.pages.push({ purchases, window, start, api, chapter, chapterOverApi: ratio(chapter.medianMs, api.medianMs) });
      progress.step(`${purchases.toLocaleString("en")} purchases: ${window}`);
    }
    const api = await readWholeList(monitor, (start) => readPageAsApi(db, purchases, start, WHOLE_LIST_PAGE), purchases, check, Infinity);
    const chapter = await readWholeList(
      monitor,
      (start) => readPageAsChapter(db, purchases, start, WHOLE_LIST_PAGE),
      purchases,
      check,
      purchases * Math.ceil(purchases / WHOLE_LIST_PAGE) > CHAPTER_WHOLE_LIST_LIMIT ? plan.baselineWholeListSample : Infinity,
    );
    results.wholeLists.push({ purchases, api, chapter, chapterOverApi: ratio(chapter.totalMs, api.totalMs) });
    progress.step(`${purchases.toLocaleString("en")} purchases: whole list`);
  }
  return results;
}

/**
 * Reads the list in pages of WHOLE_LIST_PAGE, every page when `sample` is Infinity, else `sample`
 * pages spread evenly across the list, with totals scaled to the whole list.
 */
async function readWholeList(
  monitor: CommandMonitor,
  read: (start: number) => Promise<PageOfCustomers>,
  purchases: number,
  check: ReturnType<typeof windowChecker>,
  sample: number,
): Promise<WholeListFigures> {
  const requests = Math.max(1, Math.ceil(purchases / WHOLE_LIST_PAGE));
  const measuredRequests = Math.min(requests, sample);
  const times: number[] = [];
  const commands: number[] = [];
  let bytesReceived = 0;
  for (let index = 0; index < measuredRequests; index += 1) {
    const start = Math.floor((index * requests) / measuredRequests) * WHOLE_LIST_PAGE;
    const measured = await monitor.measure(() => read(start));
    check(start, WHOLE_LIST_PAGE, measured.result);
    times.push(measured.ms);
    commands.push(measured.commands);
    bytesReceived += measured.bytesReceived;
  }
  const scale = requests / measuredRequests;
  return {
    requests,
    measuredRequests,
    totalMs: sum(times) * scale,
    medianMs: median(times),
    commands: sum(commands) * scale,
    maxCommands: Math.max(...commands),
    bytesReceived: bytesReceived * scale,
  };
}

/** Every window read must hold exactly the customers stored at those positions: a lost or misplaced purchase is a violation. */
function windowChecker(purchases: number, violations: string[]) {
  return (start: number, first: number, page: PageOfCustomers): void => {
    const end = Math.min(start + first, purchases);
    const expected = Array.from({ length: Math.max(0, end - start) }, (_, index) => customerId(CUSTOMER_PREFIX, start + index));
    const expectedHasNext = start + first < purchases;
    if (page.customers.join() !== expected.join() || page.hasNextPage !== expectedHasNext) {
      violations.push(
        `book of ${purchases}: window [${start}, ${start + first}) read ${page.customers.length} customers, hasNextPage ${page.hasNextPage}`,
      );
    }
  };
}
