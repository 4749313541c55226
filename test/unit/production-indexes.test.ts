import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { RequiredIndex } from "../../src/db/indexes";
import { salesIndexes } from "../../src/sales/indexes";

/**
 * docs/operations/production.md lists the indexes start-up creates; it once named 4 of 12. Its table's rows,
 * as collection, key and options, must be exactly those of salesIndexes(), the list start-up creates.
 */
const DOCUMENT = resolve(__dirname, "../../docs/operations/production.md");
const COLLECTIONS = new Set(salesIndexes().map(({ collection }) => collection));

/** A key pattern as the document writes it: `{ book_id: 1, page: 1 }`. */
const written = (key: RequiredIndex["key"]) =>
  `{ ${Object.entries(key)
    .map(([field, order]) => `${field}: ${order}`)
    .join(", ")} }`;

function options({ unique, expireAfterSeconds }: RequiredIndex): string {
  if (unique) return "unique";
  if (expireAfterSeconds !== undefined) return `TTL, \`expireAfterSeconds: ${expireAfterSeconds}\``;
  return "";
}

/** The table rows whose first cell is a collection that has indexes, as "collection | key | options". */
function documentedRows(): string[] {
  return readFileSync(DOCUMENT, "utf8")
    .split("\n")
    .map((line) => /^\| `([a-z_]+)` \| `(\{[^`]*\})` \| ([^|]*?) *\|/.exec(line))
    .filter((row): row is RegExpExecArray => row !== null && COLLECTIONS.has(row[1]!))
    .map(([, collection, key, rowOptions]) => `${collection} | ${key} | ${rowOptions}`);
}

describe("production.md's index list", () => {
  it("names every index start-up creates, with its key and options, and no other", () => {
    const expected = salesIndexes().map((index) => `${index.collection} | ${written(index.key)} | ${options(index)}`);
    expect(documentedRows().sort()).toEqual(expected.sort());
  });
});
