import { migrateCatalog, type MigrationReport } from "../maintenance/migration";
import { withBookProgress } from "./book-progress";
import { parseFlags, runToolAsMain, ToolFailure, withDatabase, type ToolDefinition } from "./tool";

const USAGE = `Usage: npm run migrate -- [--dry-run]

Brings the catalog in the database MONGODB_URI and MONGODB_DB name into the bounded form the API
writes: embedded customers_purchased arrays longer than OUTLIER_THRESHOLD move past the threshold
into extra_sales pages of EXTRA_SALES_PAGE_SIZE; the manual's single extra-sales document per book
(in extra_sales or sales_extras, under customers_purchased_extra or customers_purchased) becomes
numbered pages after the embedded purchases; has_extras, purchase_count and extra_page_size are set.
Safe to stop and run again, and to run while the API records purchases. --dry-run writes nothing
and reports what a run would change. Exits 1 when books are left for a person to look at.`;

const FLAGS = { "dry-run": { type: "boolean", default: false } } as const;

export const migrateTool: ToolDefinition = {
  usage: USAGE,
  async run(args, env, output) {
    const flags = parseFlags(args, FLAGS);
    const report = await withDatabase(env, "npm run migrate", async ({ db }, config) => {
      return withBookProgress("Migrating |{bar}| {value}/{total} books | {moved} purchases moved", (bar) =>
        migrateCatalog(db, config, {
          dryRun: flags["dry-run"],
          onProgress: (progress) => bar.update(progress.booksChecked, progress.booksTotal, { moved: progress.purchasesMoved }),
        }),
      );
    });
    output.out(formatMigrationReport(report));
    const unresolved = report.needsAttention.length + report.orphanLegacyDocuments.length;
    if (unresolved > 0) {
      throw new ToolFailure(`${unresolved} books or legacy documents were left as they were; the reasons above say what each needs.`);
    }
  },
};

export function formatMigrationReport(report: MigrationReport): string {
  const would = report.dryRun ? "would be " : "";
  const figures: [string, string | number][] = [
    ["books checked", `${report.booksChecked} of ${report.booksTotal}`],
    [`books ${would}converted`, report.booksConverted],
    [`search words ${would}set`, report.searchWordsSet],
    [`purchases ${would}moved`, report.purchasesMoved],
    [`legacy documents ${would}removed`, report.legacyDocumentsRemoved],
  ];
  const width = Math.max(...figures.map(([label]) => label.length)) + 2;
  return [
    report.dryRun ? "Dry run: nothing was written." : "Migration done.",
    ...figures.map(([label, value]) => `  ${`${label}:`.padEnd(width)}${value}`),
    ...report.needsAttention.map(({ bookId, reason }) => `  left as is: book ${bookId}: ${reason}`),
    ...report.orphanLegacyDocuments.map(
      ({ collection, bookId }) => `  left as is: legacy extra sales in ${collection} for book ${bookId}, which does not exist`,
    ),
  ].join("\n");
}

if (require.main === module) runToolAsMain(migrateTool);
