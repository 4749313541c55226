import type { Db } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { retrieveBuyersWindow } from "../../src/sales/book-buyers";
import { createSalesLoaders } from "../../src/sales/loaders";
import { readWindowAsChapter, type WindowOfCustomers } from "../kit/baselines";
import { customerId, customerIds, seedBook } from "../kit/catalog";
import { sampleRepeatedly, summarize, type OperationFigures, type Repetition } from "../kit/figures";
import type { CommandMonitor } from "../kit/monitor";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { median, ratio, sum } from "../kit/stats";

export const FIRST_WINDOW = 20;
export const WHOLE_LIST_WINDOW = 100;
const CUSTOMER_PREFIX = "reader-";
// Beyond this many entries loaded in all, the chapter's whole-list read is sampled and projected instead of run.
const CHAPTER_WHOLE_LIST_LIMIT = 2_000_000;

export type WindowReader = (db: Db, bookId: number, start: number, first: number) => Promise<WindowOfCustomers>;

export interface WindowReadRow {
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
  windows: WindowReadRow[];
  wholeLists: WholeListRow[];
  violations: string[];
}

/** The API's read path for one request: a fresh set of loaders, the book, then the pages holding the window. */
export const readWindowAsApi: WindowReader = async (db, bookId, start, first) => {
  const loaders = createSalesLoaders(db);
  const book = await loaders.book.load(bookId);
  if (!book) throw new Error(`bench book ${bookId} is missing`);
  const found = await retrieveBuyersWindow((window) => loaders.extraSalesWindow.load(window), book, {
    after: start === 0 ? null : start - 1,
    before: null,
    first,
  });
  return { customers: found.buyers.map((buyer) => buyer.customerId), hasNextPage: found.hasNextPage };
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
  const results: ReadResults = { windows: [], wholeLists: [], violations: [] };
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
      const sample = (read: WindowReader) =>
        sampleRepeatedly(monitor, async () => check(start, FIRST_WINDOW, await read(db, purchases, start, FIRST_WINDOW)), repetition);
      const api = summarize(await sample(readWindowAsApi));
      const chapter = summarize(await sample(readWindowAsChapter));
      results.windows.push({ purchases, window, start, api, chapter, chapterOverApi: ratio(chapter.medianMs, api.medianMs) });
      progress.step(`${purchases.toLocaleString("en")} purchases: ${window}`);
    }
    const api = await readWholeList(
      monitor,
      (start) => readWindowAsApi(db, purchases, start, WHOLE_LIST_WINDOW),
      purchases,
      check,
      Infinity,
    );
    const chapter = await readWholeList(
      monitor,
      (start) => readWindowAsChapter(db, purchases, start, WHOLE_LIST_WINDOW),
      purchases,
      check,
      purchases * Math.ceil(purchases / WHOLE_LIST_WINDOW) > CHAPTER_WHOLE_LIST_LIMIT ? plan.baselineWholeListSample : Infinity,
    );
    results.wholeLists.push({ purchases, api, chapter, chapterOverApi: ratio(chapter.totalMs, api.totalMs) });
    progress.step(`${purchases.toLocaleString("en")} purchases: whole list`);
  }
  return results;
}

/**
 * Reads the list in windows of WHOLE_LIST_WINDOW, every window when `sample` is Infinity, else `sample`
 * windows spread evenly across the list, with totals scaled to the whole list.
 */
async function readWholeList(
  monitor: CommandMonitor,
  read: (start: number) => Promise<WindowOfCustomers>,
  purchases: number,
  check: ReturnType<typeof windowChecker>,
  sample: number,
): Promise<WholeListFigures> {
  const requests = Math.max(1, Math.ceil(purchases / WHOLE_LIST_WINDOW));
  const measuredRequests = Math.min(requests, sample);
  const times: number[] = [];
  const commands: number[] = [];
  let bytesReceived = 0;
  for (let index = 0; index < measuredRequests; index += 1) {
    const start = Math.floor((index * requests) / measuredRequests) * WHOLE_LIST_WINDOW;
    const measured = await monitor.measure(() => read(start));
    check(start, WHOLE_LIST_WINDOW, measured.result);
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
  return (start: number, first: number, read: WindowOfCustomers): void => {
    const end = Math.min(start + first, purchases);
    const expected = Array.from({ length: Math.max(0, end - start) }, (_, index) => customerId(CUSTOMER_PREFIX, start + index));
    const expectedHasNext = start + first < purchases;
    if (read.customers.join() !== expected.join() || read.hasNextPage !== expectedHasNext) {
      violations.push(
        `book of ${purchases}: window [${start}, ${start + first}) read ${read.customers.length} customers, hasNextPage ${read.hasNextPage}`,
      );
    }
  };
}
