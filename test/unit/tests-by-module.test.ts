import { join } from "node:path";
import { documentedTable, testsByModuleTable } from "../support/tests-by-module";

const ROOT = join(__dirname, "..", "..");

it("docs/testing.md's table from each src/ module to its tests is the one the test files give (npm run docs:tests rewrites it)", () => {
  expect(documentedTable(ROOT)).toBe(testsByModuleTable(ROOT));
});

it("lists every test file in that table, and every module of src/", () => {
  const table = testsByModuleTable(ROOT);
  for (const file of ["unit/pool-share.test.ts", "api/subscription-variables.test.ts", "api/purchase-count-two-processes.test.ts"])
    expect(table).toContain(`\`${file}\``);
  expect(table).toContain("| `src/sales/pool-share.ts` |");
  expect(table).toContain("| `src/graphql/caching/caching.ts` | ");
  expect(table).toMatch(/\| `src\/graphql\/caching\/caching\.ts` \| [^\n]*`api\/caching\.test\.ts`/);
});
