import { BSON, type Db } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { extraSalesCollection, salesCollection } from "../../src/sales/documents";
import { KnownOutliers } from "../../src/sales/known-outliers";
import { recordPurchase } from "../../src/sales/purchases";
import { findUnboundedBook, pushUnbounded, seedUnboundedBook, type UnboundedBook } from "../kit/baselines";
import { customerId, customerIds, seedBook } from "../kit/catalog";
import { summarize, type OperationFigures } from "../kit/figures";
import { bookViolations } from "../kit/invariants";
import type { CommandMonitor, Measured } from "../kit/monitor";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { ratio } from "../kit/stats";

export interface WriteRow {
  existing: number;
  unbounded: OperationFigures;
  project: OperationFigures;
  /** Median time of (a) over median time of (b), both measured in this run, interleaved. */
  unboundedOverProject: number;
  /** BSON size after the run of the document each approach keeps growing. */
  unboundedDocumentBytes: number;
  projectBookBytes: number;
  projectLargestPageBytes: number;
}

export interface WriteResults {
  rows: WriteRow[];
  violations: string[];
}

/** One way of recording a purchase, with the customers it recorded and what each write cost. */
interface WriteSubject {
  write(customer: string): Promise<unknown>;
  recorded: string[];
  samples: Measured<unknown>[];
}

/** One size N: the same N purchases stored both ways, under the same book id in separate collections. */
interface WriteBench {
  existing: number;
  bookId: string;
  seeded: string[];
  unbounded: WriteSubject;
  project: WriteSubject;
}

export function writeSteps(plan: Plan["writes"]): number {
  return plan.existing.length + plan.rounds;
}

/**
 * Every size is seeded first, then measured round-robin: each round writes a batch to every size,
 * both ways, alternating which way goes first. Drift (JIT warm-up, garbage collection, other load
 * on the machine) then falls on all sizes and both ways alike instead of on whichever ran first.
 */
export async function benchmarkWrites(
  db: Db,
  monitor: CommandMonitor,
  settings: OutlierSettings,
  plan: Plan["writes"],
  progress: Progress,
): Promise<WriteResults> {
  const benches: WriteBench[] = [];
  for (const existing of plan.existing) {
    benches.push(await seedWriteBench(db, existing, settings));
    progress.step(`${existing.toLocaleString("en")} purchases stored both ways`);
  }
  let bought = 0;
  const writeBatch = async (side: WriteSubject, ops: number, keep: boolean) => {
    for (let op = 0; op < ops; op += 1) {
      const customer = customerId("bought-", bought++);
      side.recorded.push(customer);
      const sample = await monitor.measure(() => side.write(customer));
      if (keep) side.samples.push(sample);
    }
  };
  for (const bench of benches) {
    await writeBatch(bench.unbounded, plan.warmupOps, false);
    await writeBatch(bench.project, plan.warmupOps, false);
  }
  for (let round = 0; round < plan.rounds; round += 1) {
    for (const bench of benches) {
      const order = round % 2 === 0 ? [bench.unbounded, bench.project] : [bench.project, bench.unbounded];
      for (const side of order) await writeBatch(side, plan.opsPerRound, true);
    }
    progress.step(`round ${round + 1} of ${plan.rounds}`);
  }
  return collectWriteResults(db, benches, settings);
}

async function seedWriteBench(db: Db, existing: number, settings: OutlierSettings): Promise<WriteBench> {
  const bookId = `write-${existing}`;
  const seeded = customerIds("seeded-", existing);
  await seedUnboundedBook(db, bookId, seeded);
  await seedBook(db, bookId, seeded, settings);
  // As a server keeps one: after the first extra sale, the book's purchases go straight to its pages.
  const knownOutliers = new KnownOutliers();
  return {
    existing,
    bookId,
    seeded,
    unbounded: subject((customer) => pushUnbounded(db, bookId, customer)),
    project: subject((customer) => recordPurchase(db, bookId, customer, settings, { knownOutliers })),
  };
}

function subject(write: (customer: string) => Promise<unknown>): WriteSubject {
  return { write, recorded: [], samples: [] };
}

async function collectWriteResults(db: Db, benches: WriteBench[], settings: OutlierSettings): Promise<WriteResults> {
  const results: WriteResults = { rows: [], violations: [] };
  for (const { existing, bookId, seeded, unbounded, project } of benches) {
    const unboundedBook = await findUnboundedBook(db, bookId);
    results.rows.push(await sizesAfter(db, bookId, existing, unboundedBook, summarize(unbounded.samples), summarize(project.samples)));
    results.violations.push(
      ...(await bookViolations(db, bookId, [...seeded, ...project.recorded], settings)),
      ...unboundedViolations(bookId, unboundedBook, seeded.length + unbounded.recorded.length),
    );
  }
  return results;
}

async function sizesAfter(
  db: Db,
  bookId: string,
  existing: number,
  unboundedBook: UnboundedBook | null,
  unbounded: OperationFigures,
  project: OperationFigures,
): Promise<WriteRow> {
  const [projectBook, pages] = await Promise.all([
    salesCollection(db).findOne({ _id: bookId }),
    extraSalesCollection(db).find({ book_id: bookId }).toArray(),
  ]);
  const size = (document: BSON.Document | null) => (document ? BSON.calculateObjectSize(document) : 0);
  return {
    existing,
    unbounded,
    project,
    unboundedOverProject: ratio(unbounded.medianMs, project.medianMs),
    unboundedDocumentBytes: size(unboundedBook),
    projectBookBytes: size(projectBook),
    projectLargestPageBytes: Math.max(0, ...pages.map(size)),
  };
}

/** The baseline is checked too, so that both sides are known to have done all their work. */
function unboundedViolations(bookId: string, book: UnboundedBook | null, expected: number): string[] {
  const stored = book?.customers_purchased.length ?? 0;
  return stored === expected ? [] : [`unbounded baseline ${bookId}: ${stored} entries, expected ${expected}`];
}
