import type { Db } from "mongodb";
import type { Config } from "../config";
import { repairViolations, type RepairOutcome } from "../maintenance/reconcile/repairs";
import { findViolations } from "../maintenance/reconcile/scan";
import type { Violation } from "../maintenance/reconcile/violations";
import { withBookProgress } from "./book-progress";
import { counted, parseFlags, ReportedFailure, runToolAsMain, withDatabase, type ToolDefinition } from "./tool";

const USAGE = `Usage: npm run reconcile -- [--fix] [--json]

Checks every book in the database MONGODB_URI and MONGODB_DB name against the outlier pattern's
invariants and prints each violation with the book id and the numbers, and each missing index. Exits 1
when any is found (with --fix: when any is left unrepaired). A purchase_count ahead of the purchases
stored means purchases were lost: reported as ERROR and never repaired. --fix repairs a lagging purchase_count, page counts
and has_extras with guarded updates, rewrites the pages of a book that repeat a page number (while the
unique page index is missing, keeping every purchase), then creates the missing indexes; it never
deletes a purchase, and leaves orphan pages in place.
--json prints one JSON object instead of lines.`;

const FLAGS = { fix: { type: "boolean", default: false }, json: { type: "boolean", default: false } } as const;

export interface CheckedViolation {
  kind: Violation["kind"];
  /** "error" when purchases were lost (never repaired by --fix); "warning" for the rest. */
  level: "error" | "warning";
  /** Absent for what concerns the whole database (a missing index). */
  bookId?: string;
  message: string;
  numbers: Violation["numbers"];
  fixable: boolean;
  /** With --fix: "repaired", or "changed" when the data moved on since the check; absent otherwise. */
  repair?: RepairOutcome;
}

export const reconcileTool: ToolDefinition = {
  usage: USAGE,
  async run(args, env, output) {
    const flags = parseFlags(args, FLAGS);
    // Without creating the indexes first: duplicate pages would make that fail, and repairing them is this command's job.
    const checked = await withDatabase(env, "npm run reconcile", (connection, config) => checkAndRepair(connection.db, config, flags.fix), {
      withIndexes: false,
    });
    const left = checked.filter((violation) => violation.repair !== "repaired").length;
    output.out(
      flags.json ? JSON.stringify({ found: checked.length, left, violations: checked }, null, 2) : formatViolations(checked, left),
    );
    // The summary above ("2 violations found, 1 left.", or the JSON's found and left) is the failure's message.
    if (left > 0) throw new ReportedFailure(`${counted(left, "violation")} left.`);
  },
};

async function checkAndRepair(db: Db, config: Config, fix: boolean): Promise<CheckedViolation[]> {
  const violations = await withBookProgress("Checking |{bar}| {value}/{total} books | {violations} violations", (bar) =>
    findViolations(db, config, (progress) => bar.update(progress.booksChecked, progress.booksTotal, { violations: progress.violations })),
  );
  const outcomes = fix ? await repairViolations(db, violations) : new Map<Violation, RepairOutcome>();
  return violations.map((violation) => describe(violation, outcomes.get(violation)));
}

function describe({ kind, level, bookId, message, numbers, repair }: Violation, outcome: RepairOutcome | undefined): CheckedViolation {
  return {
    kind,
    level: level ?? "warning",
    ...(bookId === undefined ? {} : { bookId }),
    message,
    numbers,
    fixable: repair !== undefined,
    ...(outcome ? { repair: outcome } : {}),
  };
}

const OUTCOME_TEXT: Record<RepairOutcome, string> = {
  repaired: " [repaired]",
  changed: " [not repaired: changed since checked, run again]",
};

function formatViolations(checked: CheckedViolation[], left: number): string {
  const lines = checked.map(
    ({ kind, level, bookId, message, repair }) =>
      `${level === "error" ? "ERROR " : ""}${bookId === undefined ? "" : `book ${bookId}: `}${kind}: ${message}${repair ? OUTCOME_TEXT[repair] : ""}`,
  );
  return [...lines, `${counted(checked.length, "violation")} found, ${left} left.`].join("\n");
}

if (require.main === module) runToolAsMain(reconcileTool);
