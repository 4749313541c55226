import { formatBookId } from "../sales/book-ids";
import { DEFAULT_LARGEST_BOOKS, retrieveSalesStats, type SalesStats } from "../sales/stats";
import { parseFlags, runToolAsMain, wholeNumberFlag, withDatabase, type ToolDefinition } from "./tool";

const USAGE = `Usage: npm run report -- [--top N] [--json]

Prints how the outlier pattern stands in the database MONGODB_URI and MONGODB_DB name: books,
outliers, extra_sales pages, extra_sales pages per outlier (max, median, 99th percentile), the
--top largest books by purchase count (default ${DEFAULT_LARGEST_BOOKS}, at most 100), and the threshold and page size
this environment configures. The same figures as the API's salesStats query. --json prints one JSON object.`;

const FLAGS = {
  top: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

export const reportTool: ToolDefinition = {
  usage: USAGE,
  async run(args, env, output) {
    const flags = parseFlags(args, FLAGS);
    const top = wholeNumberFlag(flags.top, "top", DEFAULT_LARGEST_BOOKS);
    await withDatabase(env, "npm run report", async ({ db }, config) => {
      const stats = await retrieveSalesStats(db, config, top);
      output.out(flags.json ? JSON.stringify(salesStatsForJson(stats), null, 2) : formatSalesStats(stats, config.mongodbDb));
    });
  },
};

/** Books as the API shows them (ids as strings, camelCase), without their buyers. */
export function salesStatsForJson(stats: SalesStats) {
  return {
    ...stats,
    largestBooks: stats.largestBooks.map((book) => ({
      id: formatBookId(book._id),
      title: book.title,
      author: book.author,
      purchaseCount: book.purchase_count,
      hasExtras: book.has_extras,
    })),
  };
}

const number = (value: number) => value.toLocaleString("en-US");

export function formatSalesStats(stats: SalesStats, dbName: string): string {
  const { max, median, p99 } = stats.overflowPagesPerOutlier;
  const rows: [string, string][] = [
    ["books", number(stats.books)],
    ["outliers (has_extras)", number(stats.outliers)],
    ["extra_sales documents", number(stats.extraSalesDocuments)],
    ["extra_sales pages per outlier", `max ${number(max)}, median ${number(median)}, p99 ${number(p99)}`],
    ["outlier threshold", `${number(stats.outlierThreshold)} purchases embedded`],
    ["extra_sales page size", `${number(stats.extraSalesPageSize)} purchases per page, for new books`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [`Sales catalog in database "${dbName}"`, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)];
  if (stats.largestBooks.length === 0) return lines.join("\n");
  lines.push("", `Largest ${stats.largestBooks.length} books by purchase count`);
  const countWidth = number(stats.largestBooks[0]!.purchase_count).length;
  stats.largestBooks.forEach((book, index) => {
    const rank = `${index + 1}.`.padStart(4);
    const flag = book.has_extras ? ", outlier" : "";
    lines.push(
      `${rank} ${number(book.purchase_count).padStart(countWidth)}  ${book.title} by ${book.author} (id ${formatBookId(book._id)}${flag})`,
    );
  });
  return lines.join("\n");
}

if (require.main === module) runToolAsMain(reportTool);
