import { BSON, type Db } from "mongodb";
import type { OutlierSettings } from "../src/config";
import { extraSalesCollection, salesCollection } from "../src/sales/documents";
import { recordPurchase } from "../src/sales/purchases";
import { findUnboundedBook, pushUnbounded, seedUnboundedBook, type UnboundedBook } from "./baselines";
import { customerId, customerIds, seedBook } from "./catalog";
import { summarize, type OperationFigures } from "./figures";
import { bookViolations } from "./invariants";
import type { CommandMonitor, Measured } from "./monitor";
import type { Plan } from "./plan";
import type { Progress } from "./progress";
import { ratio } from "./stats";

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

export async function benchmarkWrites(
  db: Db,
  monitor: CommandMonitor,
  settings: OutlierSettings,
  plan: Plan["writes"],
  progress: Progress,
): Promise<WriteResults> {
  const results: WriteResults = { rows: [], violations: [] };
  for (const existing of plan.existing) {
    const { row, violations } = await benchmarkOneSize(db, monitor, settings, plan, existing);
    results.rows.push(row);
    results.violations.push(...violations);
    progress.step(`${existing.toLocaleString("en")} existing purchases`);
  }
  return results;
}

async function benchmarkOneSize(db: Db, monitor: CommandMonitor, settings: OutlierSettings, plan: Plan["writes"], existing: number) {
  const bookId = `write-${existing}`;
  const seeded = customerIds("seeded-", existing);
  await seedUnboundedBook(db, bookId, seeded);
  await seedBook(db, bookId, seeded, settings);

  const unbounded = subject((customer) => pushUnbounded(db, bookId, customer));
  const project = subject((customer) => recordPurchase(db, bookId, customer, settings));
  let bought = 0;
  const writeBatches = async (order: WriteSubject[], opsEach: number, keep: boolean) => {
    for (const side of order) {
      for (let op = 0; op < opsEach; op += 1) {
        const customer = customerId("bought-", bought++);
        side.recorded.push(customer);
        const sample = await monitor.measure(() => side.write(customer));
        if (keep) side.samples.push(sample);
      }
    }
  };
  await writeBatches([unbounded, project], plan.warmupOps, false);
  // Alternating which side goes first keeps drift (caches, garbage collection, other load) from favouring either.
  for (let round = 0; round < plan.rounds; round += 1) {
    await writeBatches(round % 2 === 0 ? [unbounded, project] : [project, unbounded], plan.opsPerRound, true);
  }

  const unboundedBook = await findUnboundedBook(db, bookId);
  const row = await sizesAfter(db, bookId, existing, unboundedBook, summarize(unbounded.samples), summarize(project.samples));
  const violations = [
    ...(await bookViolations(db, bookId, [...seeded, ...project.recorded], settings)),
    ...unboundedViolations(bookId, unboundedBook, seeded.length + unbounded.recorded.length),
  ];
  return { row, violations };
}

function subject(write: (customer: string) => Promise<unknown>): WriteSubject {
  return { write, recorded: [], samples: [] };
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
