import { reportTool } from "../../src/cli/report";
import { runTool } from "../../src/cli/tool";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";

const settings = { outlierThreshold: 5, extraSalesPageSize: 10 };

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
  // Past the threshold of 5, pages of 10: none, 2 pages, 1 page.
  await seedBook(database.db, "small", customers(3), settings);
  await seedBook(database.db, "big", customers(25), settings);
  await seedBook(database.db, "middle", customers(9), settings);
});
afterAll(() => database.close());

async function runReport(
  args: string[],
  env: NodeJS.ProcessEnv = { MONGODB_URI: process.env.TEST_MONGODB_URI, MONGODB_DB: database.db.databaseName },
) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runTool(
    reportTool,
    args,
    { OUTLIER_THRESHOLD: "5", EXTRA_SALES_PAGE_SIZE: "10", ...env },
    {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    },
  );
  return { status, out: out.join("\n"), err: err.join("\n") };
}

describe("npm run report", () => {
  it("prints the counts, the page distribution and the settings for people", async () => {
    const { status, out } = await runReport([]);
    expect(status).toBe(0);
    expect(out).toMatch(/^ {2}books +3$/m);
    expect(out).toMatch(/^ {2}outliers \(has_extras\) +2$/m);
    expect(out).toMatch(/^ {2}extra_sales documents +3$/m);
    expect(out).toMatch(/^ {2}extra_sales pages per outlier +max 2, median 1, p99 2$/m);
    expect(out).toMatch(/^ {2}outlier threshold +5 purchases embedded$/m);
  });

  it("lists the largest books first, as many as --top asks", async () => {
    const { out } = await runReport(["--top", "2"]);
    const ranking = out.split("\n").filter((line) => /^ +\d+\. /.test(line));
    expect(ranking).toEqual([
      expect.stringMatching(/1\. 25 .*\(id big, outlier\)$/),
      expect.stringMatching(/2\. {2}9 .*\(id middle, outlier\)$/),
    ]);
  });

  it("prints one JSON object with --json, books as the API shows them", async () => {
    const { status, out } = await runReport(["--json", "--top", "1"]);
    expect(status).toBe(0);
    expect(JSON.parse(out)).toEqual({
      books: 3,
      outliers: 2,
      extraSalesDocuments: 3,
      overflowPagesPerOutlier: { max: 2, median: 1, p99: 2 },
      largestBooks: [{ id: "big", title: "Seeded big", author: "A", purchaseCount: 25, hasExtras: true }],
      outlierThreshold: 5,
      extraSalesPageSize: 10,
    });
  });

  it("exits with status 2 naming top when --top is above 100", async () => {
    const { status, err } = await runReport(["--top", "101"]);
    expect(status).toBe(2);
    expect(err).toMatch(/^top must be from 0 to 100, got 101/);
  });

  it("exits with status 2 and says where the flags go when npm kept --top for itself", async () => {
    // `npm run report --top 3` hands the command "3" alone.
    const { status, err } = await runReport(["3"]);
    expect(status).toBe(2);
    expect(err).toMatch(/^Unexpected argument '3'.* put `--` before the command's flags, e\.g\. `npm run report -- --top 3`/);
  });

  it("exits with status 2 naming top and its value when --top is negative", async () => {
    const { status, err } = await runReport(["--top", "-5"]);
    expect(status).toBe(2);
    expect(err).not.toMatch(/ambiguous/);
    expect(err).toMatch(/^--top must be a whole number, got "-5"/);
  });

  it("exits with status 2 and names MONGODB_URI when it is unset", async () => {
    const { status, err } = await runReport([], {});
    expect(status).toBe(2);
    expect(err).toMatch(/^MONGODB_URI is not set: npm run report/);
  });
});
