import { readFileSync } from "node:fs";
import { join } from "node:path";
import { reportTool } from "../../src/cli/report";
import { runTool } from "../../src/cli/tool";
import { readConfig } from "../../src/config";
import { DEMO_CATALOG, loadCatalog } from "../../src/maintenance/demo-catalog";
import { openTestDatabase, type TestDatabase } from "../support/database";

/**
 * docs/operations/tools.md shows `npm run report -- --top 3` after a default seed (npm start's demo catalog): this
 * loads that catalog and runs the report, so the sample in the document is what the command prints, not a memory of it.
 */
const TOOLS_MD = join(__dirname, "..", "..", "docs", "operations", "tools.md");

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
  await loadCatalog(database.db, DEMO_CATALOG, readConfig({}));
});
afterAll(() => database.close());

it("prints the sample report tools.md shows, figure for figure", async () => {
  const out: string[] = [];
  const env = { MONGODB_URI: process.env.TEST_MONGODB_URI, MONGODB_DB: database.db.databaseName };
  const status = await runTool(reportTool, ["--top", "3"], env, { out: (line) => out.push(line), err: () => undefined });
  const documented = /```\n(Sales catalog in database "bookstore"\n[\s\S]*?)```/.exec(readFileSync(TOOLS_MD, "utf8"))?.[1];
  expect(status).toBe(0);
  expect(`${out.join("\n")}\n`.replace(`"${database.db.databaseName}"`, '"bookstore"')).toBe(documented);
});
