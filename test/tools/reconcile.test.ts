import { PageRepairInProgressError } from "../../src/db/errors";
import { createBook } from "../../src/sales/books";
import { extraSalesCollection, RECONCILE_JOURNAL, salesCollection, type BookId } from "../../src/sales/documents";
import { ensureSalesIndexes, findMissingSalesIndexes } from "../../src/sales/indexes";
import { recordPurchase } from "../../src/sales/purchases";
import { repairViolations } from "../../src/maintenance/reconcile/repairs";
import { findViolations } from "../../src/maintenance/reconcile/scan";
import type { Violation } from "../../src/maintenance/reconcile/violations";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, storedPurchases } from "../support/factories";
import {
  SETTINGS,
  emptyCollections,
  insertBoundedBook,
  insertLegacy,
  legacyBook,
  legacyExtraSales,
  runCommand,
  snapshot,
} from "./fixtures";

let database: TestDatabase;
beforeAll(async () => void (database = await openTestDatabase()));
afterAll(() => database.close());
beforeEach(() => emptyCollections(database.db));

const check = () => findViolations(database.db, SETTINGS);
const summary = (violations: Violation[]) =>
  violations.map(({ kind, bookId, numbers, repair }) => ({ kind, bookId, numbers, fixable: repair !== undefined }));

/** A bounded book, then `breakIt` applied to its stored documents. */
async function brokenBook(id: BookId, purchases: number, breakIt: (id: BookId) => Promise<unknown>): Promise<void> {
  await insertBoundedBook(database.db, id, customers(purchases));
  await breakIt(id);
}

const setBook = (fields: object) => (id: BookId) => salesCollection(database.db).updateOne({ _id: id }, { $set: fields });
const setPage = (page: number, fields: object) => (id: BookId) =>
  extraSalesCollection(database.db).updateOne({ book_id: id, page }, { $set: fields });

async function brokenCatalog(): Promise<void> {
  await brokenBook("count", 12, setBook({ purchase_count: 9 }));
  await brokenBook("page-count", 12, setPage(0, { count: 2 }));
  await brokenBook("flag-unset", 7, setBook({ has_extras: false }));
  await brokenBook("flag-string", 3, setBook({ has_extras: "true" }));
  await brokenBook("flag-alone", 5, setBook({ has_extras: true }));
  await brokenBook("embedded", 5, setBook({ customers_purchased: customers(7), purchase_count: 7 }));
  await brokenBook("gap", 11, setPage(1, { page: 2 }));
  await brokenBook("over-size", 11, setPage(0, { customers_purchased_extra: customers(5, 5), count: 5 }));
  await brokenBook("not-full", 11, setPage(0, { customers_purchased_extra: customers(3, 5), count: 3 }));
  await extraSalesCollection(database.db).insertOne({ book_id: "gone", page: 0, count: 1, customers_purchased_extra: ["orphan"] });
  await insertLegacy(database.db, {
    books: [legacyBook("legacy", customers(5), { has_extras: true })],
    salesExtras: [legacyExtraSales("legacy", ["late"])],
  });
}

describe("npm run reconcile", () => {
  it("finds nothing wrong in books written by recordPurchase and by the bulk loader", async () => {
    await createBook(database.db, { id: "recorded", title: "T", author: "A" }, SETTINGS);
    for (const customer of customers(14)) await recordPurchase(database.db, "recorded", customer, SETTINGS);
    for (const purchases of [0, 5, 6, 13]) await insertBoundedBook(database.db, `bulk-${purchases}`, customers(purchases));

    expect(await check()).toEqual([]);
  });

  it("reports every broken invariant with the book id and the numbers", async () => {
    await brokenCatalog();

    expect(summary(await check())).toEqual([
      { kind: "purchase-count", bookId: "count", numbers: { stored: 9, embedded: 5, overflow: 7, expected: 12 }, fixable: true },
      { kind: "embedded-over-threshold", bookId: "embedded", numbers: { embedded: 7, threshold: 5 }, fixable: false },
      { kind: "has-extras", bookId: "flag-alone", numbers: { stored: true, overflow: 0 }, fixable: false },
      { kind: "has-extras", bookId: "flag-string", numbers: { stored: "true", overflow: 0 }, fixable: true },
      { kind: "has-extras", bookId: "flag-unset", numbers: { stored: false, overflow: 2 }, fixable: true },
      { kind: "page-gap", bookId: "gap", numbers: { page: "2", entries: 2, expected: 1 }, fixable: false },
      { kind: "not-migrated", bookId: "legacy", numbers: { extraPageSize: null }, fixable: false },
      { kind: "page-not-full", bookId: "not-full", numbers: { page: "0", entries: 3, pageSize: 4 }, fixable: false },
      { kind: "purchase-count-ahead", bookId: "not-full", numbers: { stored: 11, embedded: 5, overflow: 5, expected: 10 }, fixable: false },
      { kind: "page-over-size", bookId: "over-size", numbers: { page: "0", entries: 5, pageSize: 4 }, fixable: false },
      { kind: "purchase-count", bookId: "over-size", numbers: { stored: 11, embedded: 5, overflow: 7, expected: 12 }, fixable: true },
      { kind: "page-count", bookId: "page-count", numbers: { page: "0", entries: 4, count: 2 }, fixable: true },
      { kind: "orphan-page", bookId: "gone", numbers: { page: "0", entries: 1 }, fixable: false },
      { kind: "legacy-overflow", bookId: "legacy", numbers: { collection: "sales_extras" }, fixable: false },
    ]);
  });

  it("with --fix repairs counts and flags, and moves or deletes no purchase", async () => {
    await brokenCatalog();
    const purchasesBefore = await everyStoredPurchase();
    const violations = await check();

    const outcomes = await repairViolations(database.db, violations);

    expect([...outcomes.values()]).toEqual(violations.filter((violation) => violation.repair).map(() => "repaired"));
    expect(await everyStoredPurchase()).toEqual(purchasesBefore);
    const left = summary(await check()).map(({ kind, bookId }) => `${kind} ${bookId}`);
    expect(left).toEqual([
      "embedded-over-threshold embedded",
      "has-extras flag-alone",
      "page-gap gap",
      "not-migrated legacy",
      "page-not-full not-full",
      "purchase-count-ahead not-full",
      "page-over-size over-size",
      "orphan-page gone",
      "legacy-overflow legacy",
    ]);
  });

  it("does not apply a repair to a book a purchase changed after the check", async () => {
    await brokenBook("count", 12, setBook({ purchase_count: 9 }));
    const violations = await check();
    await recordPurchase(database.db, "count", "meanwhile", SETTINGS);
    const before = await snapshot(database.db);

    const outcomes = await repairViolations(database.db, violations);

    expect([...outcomes.values()]).toEqual(["changed"]);
    expect(await snapshot(database.db)).toEqual(before);
  });

  it("reports its progress in books checked", async () => {
    for (const id of ["a", "b", "c"]) await insertBoundedBook(database.db, id, customers(1));
    const reports: number[] = [];
    await findViolations(database.db, SETTINGS, (progress) => reports.push(progress.booksChecked));
    expect(reports).toEqual([1, 2, 3]);
  });
});

async function everyStoredPurchase(): Promise<Record<string, string[]>> {
  const books = await salesCollection(database.db)
    .find({}, { projection: { _id: 1 } })
    .sort({ _id: 1 })
    .toArray();
  const orphans = await extraSalesCollection(database.db).find({ book_id: "gone" }).toArray();
  return Object.fromEntries([
    ...(await Promise.all(books.map(async ({ _id }) => [String(_id), await storedPurchases(database.db, String(_id))] as const))),
    ["gone", orphans.flatMap((page) => page.customers_purchased_extra)],
  ]);
}

/** stderr's lines other than the progress bar's: the summary belongs on stdout alone, said once. */
const notProgress = (stderr: string) => stderr.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("Checking |"));

describe("npm run reconcile as a command", () => {
  const target = () => ({ uri: process.env.TEST_MONGODB_URI, name: database.db.databaseName });

  it("exits 0 on a sound catalog and 1 with one line per violation on a broken one", async () => {
    await insertBoundedBook(database.db, "sound", customers(9));
    expect(await runCommand("src/cli/reconcile.ts", [], target())).toMatchObject({
      status: 0,
      stdout: expect.stringContaining("0 violations found"),
    });

    await brokenBook("count", 12, setBook({ purchase_count: 9 }));
    const broken = await runCommand("src/cli/reconcile.ts", [], target());
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(
      "book count: purchase-count: purchase_count is 9 but it holds 5 embedded + 7 extra sales = 12 purchases",
    );
    expect(broken.stdout.match(/violations? found/g)).toEqual(["violation found"]);
    expect(broken.stdout).toMatch(/^1 violation found, 1 left\.$/m);
    expect(notProgress(broken.stderr)).toEqual([]);
  });

  it("with --fix --json repairs what it may, prints the outcome as JSON, and exits 1 for what it left", async () => {
    await brokenBook("count", 12, setBook({ purchase_count: 9 }));
    await brokenBook("gap", 11, setPage(1, { page: 2 }));

    const run = await runCommand("src/cli/reconcile.ts", ["--fix", "--json"], target());

    expect(run.status).toBe(1);
    expect(notProgress(run.stderr)).toEqual([]);
    expect(JSON.parse(run.stdout)).toEqual({
      found: 2,
      left: 1,
      violations: [
        expect.objectContaining({ kind: "purchase-count", bookId: "count", fixable: true, repair: "repaired" }),
        expect.objectContaining({ kind: "page-gap", bookId: "gap", fixable: false }),
      ],
    });
    expect(await salesCollection(database.db).findOne({ _id: "count" })).toMatchObject({ purchase_count: 12 });
  });

  it("reports a count ahead of the stored purchases as lost purchases at error level, which --fix leaves for a person", async () => {
    await brokenBook("lost", 12, setPage(1, { customers_purchased_extra: customers(1, 9), count: 1 }));

    const run = await runCommand("src/cli/reconcile.ts", ["--fix"], target());

    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      "ERROR book lost: purchase-count-ahead: purchase_count is 12 but it holds only 5 embedded + 5 extra sales = 10 purchases: 2 counted purchases are not stored",
    );
    expect(run.stdout).toContain("--fix leaves the count for a person to decide");
    expect(await salesCollection(database.db).findOne({ _id: "lost" })).toMatchObject({ purchase_count: 12 });
    const json = await runCommand("src/cli/reconcile.ts", ["--json"], target());
    expect(JSON.parse(json.stdout).violations).toEqual([
      expect.objectContaining({ kind: "purchase-count-ahead", level: "error", bookId: "lost", fixable: false }),
    ]);
  });
});

describe("npm run reconcile with the unique page index missing", () => {
  const target = () => ({ uri: process.env.TEST_MONGODB_URI, name: database.db.databaseName });
  const pages = () => extraSalesCollection(database.db);

  /** What racing purchases leave without the index: page 1 opened three times, the purchase count right. */
  async function duplicatedPages(): Promise<void> {
    await extraSalesCollection(database.db).dropIndex("book_id_1_page_1");
    await insertBoundedBook(database.db, "dup", customers(11));
    await pages().insertMany([
      { book_id: "dup", page: 1, count: 1, customers_purchased_extra: ["racer1"] },
      { book_id: "dup", page: 1, count: 2, customers_purchased_extra: ["racer2", "racer3"] },
    ]);
    await salesCollection(database.db).updateOne({ _id: "dup" }, { $set: { purchase_count: 14 } });
  }
  const expectedPurchases = [...customers(11), "racer1", "racer2", "racer3"];

  // Without the page index, reading every page in order is a collection scan, the one a repair cannot
  // avoid; where the run's database refuses scans (notablescan), these tests allow them while they run.
  let notablescan: boolean | undefined;
  beforeAll(async () => {
    notablescan = await readNotablescan();
    if (notablescan) await database.db.admin().command({ setParameter: 1, notablescan: false });
  });
  afterAll(async () => {
    if (notablescan) await database.db.admin().command({ setParameter: 1, notablescan: true });
  });

  afterEach(async () => {
    await database.db.collection(RECONCILE_JOURNAL).deleteMany({});
    await emptyCollections(database.db);
    await ensureSalesIndexes(database.db);
  });

  it("reports the duplicated pages and the missing index, and with --fix rewrites the pages keeping every purchase in order, then creates the index", async () => {
    await duplicatedPages();

    const violations = await check();
    expect(summary(violations)).toEqual([
      { kind: "duplicate-pages", bookId: "dup", numbers: { documents: 4, duplicates: 2 }, fixable: true },
      { kind: "missing-index", bookId: undefined, numbers: { index: "extra_sales.book_id_1_page_1" }, fixable: true },
    ]);
    const outcomes = await repairViolations(database.db, violations);

    expect([...outcomes.values()]).toEqual(["repaired", "repaired"]);
    expect(await storedPurchases(database.db, "dup")).toEqual(expectedPurchases);
    expect((await pages().find({ book_id: "dup" }).sort({ page: 1 }).toArray()).map(({ page, count }) => [page, count])).toEqual([
      [0, 4],
      [1, 4],
      [2, 1],
    ]);
    expect(await check()).toEqual([]);
    expect(await findMissingSalesIndexes(database.db)).toEqual([]);
  });

  /** A rewrite of the duplicated pages cut off after its journal and the deletion of the old pages, before any new page was written. */
  async function cutOffRewrite(): Promise<void> {
    await duplicatedPages();
    const old = await pages().find({ book_id: "dup" }).sort({ page: 1, _id: 1 }).toArray();
    await database.db.collection(RECONCILE_JOURNAL).insertOne({
      _id: "dup" as never,
      replaces: old.map((page) => page._id),
      purchases: old.flatMap((page) => page.customers_purchased_extra),
    });
    await pages().deleteMany({ book_id: "dup" });
  }

  it("finishes a page rewrite cut off half-way from its journal, losing no purchase", async () => {
    await cutOffRewrite();

    const violations = await check();
    expect(summary(violations).map(({ kind, bookId }) => `${kind} ${String(bookId)}`)).toEqual([
      "duplicate-pages dup",
      "missing-index undefined",
    ]);
    await repairViolations(database.db, violations);

    expect(await storedPurchases(database.db, "dup")).toEqual(expectedPurchases);
    expect(await check()).toEqual([]);
    expect(await database.db.collection(RECONCILE_JOURNAL).countDocuments()).toBe(0);
  });

  it("keeps the unique page index back while a rewrite is unfinished, so no purchase races it, and creates it once --fix has finished", async () => {
    await cutOffRewrite();
    await salesCollection(database.db).dropIndex("has_extras_1");

    await expect(ensureSalesIndexes(database.db)).rejects.toBeInstanceOf(PageRepairInProgressError);
    expect((await findMissingSalesIndexes(database.db)).map(({ name }) => name)).toEqual(["book_id_1_page_1"]);
    await expect(recordPurchase(database.db, "dup", "late", SETTINGS)).rejects.toMatchObject({ code: "DATABASE_NOT_READY" });

    await repairViolations(database.db, await check());
    expect(await storedPurchases(database.db, "dup")).toEqual(expectedPurchases);
    expect(await ensureSalesIndexes(database.db)).toEqual([]);
    expect(await findMissingSalesIndexes(database.db)).toEqual([]);
  });

  it("starts although the index cannot be created, exits 1 listing what is wrong, and 0 once --fix has repaired it", async () => {
    await duplicatedPages();

    const found = await runCommand("src/cli/reconcile.ts", [], target());
    expect(found.status).toBe(1);
    expect(found.stdout).toContain("book dup: duplicate-pages: 2 extra_sales documents repeat a page number (1)");
    expect(found.stdout).toContain("missing-index: index extra_sales.book_id_1_page_1 is missing");

    const fixed = await runCommand("src/cli/reconcile.ts", ["--fix"], target());
    expect(fixed).toMatchObject({ status: 0, stdout: expect.stringContaining("2 violations found, 0 left.") });
    expect(await storedPurchases(database.db, "dup")).toEqual(expectedPurchases);
  });
});

/** The server's notablescan setting, or undefined where this user may not read server parameters. */
async function readNotablescan(): Promise<boolean | undefined> {
  try {
    return (await database.db.admin().command({ getParameter: 1, notablescan: 1 })).notablescan === true;
  } catch {
    return undefined;
  }
}
