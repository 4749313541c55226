import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ApolloServerErrorCode } from "@apollo/server/errors";
import { ERROR_CODES, type ErrorCode } from "../../src/error-codes";

const root = join(__dirname, "..", "..");
const listed = Object.keys(ERROR_CODES) as ErrorCode[];

/** Every source file of the product but the list itself and codegen's output, with its text. */
function productSources(): { path: string; text: string }[] {
  return readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts") && !path.includes("__generated__"))
    .map((path) => join(root, "src", path))
    .filter((path) => relative(root, path) !== join("src", "error-codes.ts"))
    .map((path) => ({ path, text: readFileSync(path, "utf8") }));
}

/** The rows of docs/api/errors.md's table: each code with the status it states. */
function documentedErrorRows(): Map<string, number> {
  const page = readFileSync(join(root, "docs/api/errors.md"), "utf8");
  const rows = [...page.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)];
  return new Map(rows.map(([, code, status]) => [code as string, Number(status)]));
}

describe("the list of error codes", () => {
  const sources = productSources();
  const apollosOwn: readonly string[] = Object.values(ApolloServerErrorCode);

  it.each(listed)("holds %s only because the service or Apollo Server raises it", (code) => {
    const raisedBy = sources.filter(({ text }) => text.includes(`"${code}"`)).map(({ path }) => relative(root, path));
    expect(raisedBy.length > 0 || apollosOwn.includes(code)).toBe(true);
  });

  it("holds every code Apollo Server raises itself", () => {
    expect(apollosOwn.filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });

  it("is docs/api/errors.md's table, code for code and status for status", () => {
    const documented = documentedErrorRows();
    expect([...documented.keys()].sort()).toEqual([...listed].sort());
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(listed.map((code) => [code, ERROR_CODES[code].status])));
  });

  it("leaves no code in the product's source that the list does not hold", () => {
    const coded = sources.flatMap(({ text }) => [...text.matchAll(/\bcode(?:: ErrorCode)? = "([A-Z_]+)"/g)].map(([, code]) => code));
    expect(coded.filter((code) => !(code! in ERROR_CODES))).toEqual([]);
    expect(coded.length).toBeGreaterThan(0);
  });
});
