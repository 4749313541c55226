import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const repository = resolve(__dirname, "../..");
const glossaryPath = join(repository, "docs/glossary.md");
/** The code and the documents whose words the glossary governs: the product, its tests, its examples, and what people read. */
const FOLDERS = ["src", "test", "examples", "docs"];
const DOCUMENTS = ["README.md", "SECURITY.md"];
// Code written by `npm run codegen` from schema.graphql, whose names are a contract; and what a package manager installs.
const SKIPPED_FOLDERS = new Set(["__generated__", "node_modules", "dist"]);
/** The glossary and this test name the avoided words to avoid them. */
const SELF = new Set(["docs/glossary.md", "test/unit/glossary.test.ts"]);
const CHECKED = /\.(?:ts|tsx|mts|md)$/;

/**
 * The synonyms of docs/glossary.md kept out of src/, under the heading (without its backticks and
 * parentheses) of the entry that names the thing. The glossary's other "Avoid:" words are also
 * ordinary words for something else in this code (an item of a list, a sort order, a request limit,
 * the `sales` collection, a request id, a book's title), so review keeps them out, not this test.
 */
const AVOIDED_BY_ENTRY: Record<string, string[]> = {
  Book: ["product"],
  Buyer: ["purchase entry"],
  "Embedded buyers": ["inline buyers"],
  Threshold: ["cap"],
  Outlier: ["hot book", "big book"],
  "Extra sales": ["overflow", "extras"],
  Page: ["chunk"],
  "purchaseId and claim": ["lock"],
  "Shared write": ["bulk write"],
  "Stand-in": ["mock", "fake"],
  "Fail point": ["fault hook"],
  "Throwaway database": ["embedded database"],
};

/** The forms to look for, in lower-case words separated by single spaces, where a word and its endings are not enough. */
const FORMS: Record<string, string> = {
  "embedded database": "embedded(?: in memory| default)? databases?",
};

/**
 * Avoided in src/ only: outside it these words also name other things. The tests and documents speak of
 * "the product" (this software) and the storefront's product page, of a stream's chunks and MongoDB's
 * shard chunks, of jest's mocks and fake timers, of the benchmark's hot book (one bought by many at once,
 * as the glossary's Outlier entry allows), and of caps on things other than the threshold.
 */
const IN_SRC_ONLY = new Set(["product", "cap", "hot book", "chunk", "mock", "fake"]);

interface AvoidedWord {
  /** As the glossary's "Avoid:" list of `entry` spells it. */
  word: string;
  entry: string;
}

const AVOIDED: AvoidedWord[] = Object.entries(AVOIDED_BY_ENTRY).flatMap(([entry, words]) => words.map((word) => ({ word, entry })));

/** The avoided words that `file` must not hold. */
function avoidedIn(file: string): AvoidedWord[] {
  return file.startsWith("src/") || file === "sample.ts" ? AVOIDED : AVOIDED.filter(({ word }) => !IN_SRC_ONLY.has(word));
}

interface Exception {
  /** The exact text let through. */
  text: string;
  /** Only in this file (relative to the repository), when given. */
  file?: string;
  why: string;
}

/** Where code must keep an avoided word because others depend on its spelling, or it names something else. */
const EXCEPTIONS: Exception[] = [
  { text: "has_extras", why: "a stored field: existing data holds it" },
  { text: "hasExtras", why: "a schema field: clients query it" },
  { text: "overflowPagesPerOutlier", why: "a schema field: clients query it" },
  { text: "OverflowPagesDistribution", why: "a schema type: clients' generated code names it" },
  { text: "sales_extras", why: "the manual's other name for extra_sales: migrate reads existing data from it" },
  { text: "LEGACY_SALES_EXTRAS", why: "that collection's name in code, as EXTRA_SALES is extra_sales's" },
  { text: "legacy-overflow", why: "a violation kind of reconcile's report, which scripts parse" },
  { text: "has-extras", why: "a violation kind of reconcile's report, which scripts parse" },
  { text: "overflow: ", file: "src/maintenance/reconcile/checks.ts", why: "a count in reconcile's report, which scripts parse" },
  { text: "overflow: ", file: "test/tools/reconcile.test.ts", why: "that count, as reconcile's report holds it" },
  { text: "overflow: ", file: "test/unit/reconcile-checks.test.ts", why: "that count, as reconcile's report holds it" },
  { text: "sales-extras", file: "test/tools/fixtures.ts", why: "buyers of the legacy sales_extras layout, named after it" },
  { text: "salesExtras", why: "the documents of the legacy sales_extras collection, in migrate's and reconcile's fixtures" },
  { text: "MongoBulkWriteError", why: "the driver's error class" },
  { text: "bulkWrite", why: "the driver's method" },
  { text: "chunk migrations", why: "MongoDB's sharding term: a range of a sharded collection, not a page" },
];

/** Each entry's heading (as AvoidedWord.entry spells it) and the text of its "Avoid:" list, if it has one. */
function avoidListsOf(glossary: string): Map<string, string> {
  const entries = glossary.split(/^## /m).slice(1);
  return new Map(
    entries.map((entry) => {
      const [heading = "", ...body] = entry.split("\n");
      const avoid = /Avoid:([\s\S]*?)(?:\n\n|$)/.exec(body.join("\n"))?.[1] ?? "";
      return [heading.replaceAll("`", "").replace(/\s*\(.*\)$/, ""), avoid.replaceAll(/\s+/g, " ").toLowerCase()];
    }),
  );
}

interface Word {
  text: string;
  line: number;
}

/** The source's words in order, identifiers split on camelCase, snake_case and kebab-case, lower-cased. */
function wordsOf(source: string): Word[] {
  const lineStarts = [0, ...[...source.matchAll(/\n/g)].map((match) => match.index + 1)];
  const lineAt = (offset: number) => lineStarts.findLastIndex((start) => start <= offset) + 1;
  return [...source.matchAll(/[A-Za-z0-9]+/g)].flatMap((run) =>
    run[0]
      .replaceAll(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replaceAll(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
      .split(" ")
      .map((text) => ({ text: text.toLowerCase(), line: lineAt(run.index) })),
  );
}

function patternOf({ word }: AvoidedWord): RegExp {
  const forms = FORMS[word] ?? `${word}(?:s|es|d|ed|ing|er|ers)?`;
  return new RegExp(`\\b(?:${forms})\\b`, "g");
}

/** Blanks what an exception lets through, keeping every other character where it was. */
function withoutExceptions(source: string, file: string, exceptions: Exception[]): string {
  return exceptions
    .filter((exception) => exception.file === undefined || exception.file === file)
    .reduce((text, exception) => text.replaceAll(exception.text, " ".repeat(exception.text.length)), source);
}

/** Every avoided word in one source, as "file:line: word, ...". */
function avoidedWordsIn(file: string, source: string, exceptions: Exception[] = EXCEPTIONS): string[] {
  const words = wordsOf(withoutExceptions(source, file, exceptions));
  const text = words.map((word) => word.text).join(" ");
  const wordAt = new Map<number, Word>();
  words.reduce((offset, word) => (wordAt.set(offset, word), offset + word.text.length + 1), 0);
  return avoidedIn(file).flatMap((avoided) =>
    [...text.matchAll(patternOf(avoided))].map(
      (match) => `${file}:${wordAt.get(match.index)?.line}: "${match[0]}", which the glossary avoids: use its "${avoided.entry}"`,
    ),
  );
}

function checkedFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : checkedFiles(path);
    return CHECKED.test(entry.name) ? [path] : [];
  });
}

const sourceFiles = [
  ...FOLDERS.flatMap((folder) => checkedFiles(join(repository, folder))),
  ...DOCUMENTS.map((file) => join(repository, file)),
]
  .map((path) => ({ file: relative(repository, path), source: readFileSync(path, "utf8") }))
  .filter(({ file }) => !SELF.has(file));

/**
 * What a newcomer types to find how the project does what the field has a name for, and where that must land:
 * the glossary entry that gives it as "Also called", and the code or design document of the thing.
 */
const SEARCHED: Record<string, { entry: string; lands: string[] }> = {
  "idempotency key": { entry: "purchaseId and claim", lands: ["src/sales/keyed-purchases.ts", "docs/design/purchases.md"] },
  "request coalescing": { entry: "Shared execution", lands: ["src/graphql/live/shared-executions.ts", "docs/design/live-sales.md"] },
  "bucket pattern": { entry: "Page", lands: ["src/sales/extra-sales.ts", "docs/design/outlier-pattern.md"] },
  "group commit": { entry: "Shared write", lands: ["src/sales/shared-writes.ts"] },
};

describe("the field's names for the things the glossary names", () => {
  const glossary = readFileSync(glossaryPath, "utf8");
  const entries = new Map(
    glossary
      .split(/^## /m)
      .slice(1)
      .map((entry) => [
        entry
          .split("\n")[0]!
          .replaceAll("`", "")
          .replace(/\s*\(.*\)$/, ""),
        entry,
      ]),
  );

  it.each(Object.entries(SEARCHED))("a search for %s finds its glossary entry, as another name of the thing", (name, { entry }) => {
    expect(
      /Also called:([\s\S]*?)(?:\n\n|$)/
        .exec(entries.get(entry) ?? "")?.[1]
        ?.replaceAll(/\s+/g, " ")
        .toLowerCase(),
    ).toContain(name);
  });

  it.each(Object.entries(SEARCHED))("a search for %s finds the code or design of the thing", (name, { lands }) => {
    const missing = lands.filter(
      (file) => !readFileSync(join(repository, file), "utf8").replaceAll(/\s+/g, " ").toLowerCase().includes(name),
    );
    expect(missing).toEqual([]);
  });
});

describe("the glossary's words in src/, test/, examples/ and the documents", () => {
  it("looks only for words the glossary says to avoid, each under the entry that names the thing", () => {
    const avoidLists = avoidListsOf(readFileSync(glossaryPath, "utf8"));
    const unlisted = AVOIDED.filter(({ word, entry }) => !avoidLists.get(entry)?.includes(word));
    expect(unlisted).toEqual([]);
  });

  it("finds an avoided word in identifiers, across a comment's line break, and never inside a longer word", () => {
    const source = [
      "const writes = new BulkWrites(8, write);",
      "const PURCHASE_CHUNKS = [1, 2]; // the production embedded",
      " * database, and kebab-case: big-book",
    ].join("\n");
    expect(avoidedWordsIn("sample.ts", source, []).map((found) => found.split(",")[0])).toEqual([
      'sample.ts:3: "big book"',
      'sample.ts:2: "chunks"',
      'sample.ts:1: "bulk writes"',
      'sample.ts:2: "embedded database"',
    ]);
  });

  it("finds none of them in any source file or document outside the schema's generated code", () => {
    expect(sourceFiles.length).toBeGreaterThan(50);
    expect(sourceFiles.flatMap(({ file, source }) => avoidedWordsIn(file, source))).toEqual([]);
  });

  it("lets each exception through somewhere, so that none outlives the code that needed it", () => {
    const unused = EXCEPTIONS.filter((exception) =>
      sourceFiles.every(({ file, source }) => (exception.file ?? file) !== file || !source.includes(exception.text)),
    );
    expect(unused).toEqual([]);
  });
});
