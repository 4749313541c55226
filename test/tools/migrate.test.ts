import { formatBookId } from "../../src/sales/book-ids";
import { extraSalesCollection, salesCollection, type BookId } from "../../src/sales/documents";
import { migrateCatalog, type MigrationStep } from "../../src/maintenance/migration";
import { recordPurchase } from "../../src/sales/purchases";
import { StoredDataError } from "../../src/sales/errors";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, invariantViolations, storedBook, storedPurchases } from "../support/factories";
import {
  SETTINGS,
  emptyCollections,
  insertBoundedBook,
  insertLegacy,
  legacyBook,
  legacyCatalog,
  legacyExtraSales,
  runCommand,
  snapshot,
} from "./fixtures";

let database: TestDatabase;
beforeAll(async () => void (database = await openTestDatabase()));
afterAll(() => database.close());
beforeEach(() => emptyCollections(database.db));

const migrate = (options: Parameters<typeof migrateCatalog>[2] = {}) => migrateCatalog(database.db, SETTINGS, options);

async function expectEveryPurchaseOnceInOrder(purchases: Map<BookId, string[]>): Promise<void> {
  for (const [id, expected] of purchases) {
    expect(await storedPurchases(database.db, formatBookId(id))).toEqual(expected);
    expect(await invariantViolations(database.db, formatBookId(id), SETTINGS)).toEqual([]);
  }
}

class StopHere extends Error {}

/** A hook that lets `writes` writes through, then stops the run as a kill would. */
function stopAfter(writes: number): (step: MigrationStep) => void {
  let done = 0;
  return () => {
    if (done === writes) throw new StopHere();
    done += 1;
  };
}

describe("npm run migrate", () => {
  it("converts every legacy shape of the seed documents, keeping each book's purchases in order", async () => {
    const { fixture, purchases } = legacyCatalog();
    await insertLegacy(database.db, fixture);

    const report = await migrate();

    await expectEveryPurchaseOnceInOrder(purchases);
    expect(report).toMatchObject({
      booksChecked: 6,
      booksTotal: 6,
      booksConverted: 6,
      legacyDocumentsRemoved: 3,
      needsAttention: [],
      orphanLegacyDocuments: [],
    });
    expect((await snapshot(database.db)).salesExtras).toEqual([]);
    expect(await extraSalesCollection(database.db).countDocuments({ page: { $exists: false } }, { hint: { book_id: 1, page: 1 } })).toBe(0);
  });

  it("counts as moved every purchase that leaves the embedded array or a legacy document", async () => {
    await insertLegacy(database.db, {
      books: [legacyBook(1, customers(11)), legacyBook(2, customers(3), { has_extras: true })],
      extraSales: [legacyExtraSales(2, customers(4, 3))],
    });
    expect(await migrate()).toMatchObject({ purchasesMoved: 6 + 4 });
  });

  it("writes exactly the documents the API's bulk path writes for the same purchases", async () => {
    await insertLegacy(database.db, {
      books: [legacyBook("legacy", customers(8), { has_extras: "true" })],
      extraSales: [legacyExtraSales("legacy", customers(6, 8), "customers_purchased")],
    });
    await insertBoundedBook(database.db, "bounded", customers(14));

    await migrate();

    const migrated = await storedBook(database.db, "legacy");
    const bounded = await storedBook(database.db, "bounded");
    // Title and words differ with the id; the words' own migration is the test below.
    const renamed = { _id: "bounded", title: "Bounded bounded", search_words: bounded.book?.search_words };
    expect({ ...migrated.book, ...renamed }).toStrictEqual(bounded.book);
    expect(migrated.pages.map((page) => ({ ...page, book_id: "bounded" }))).toStrictEqual(bounded.pages);
  });

  it('lets a book flagged with the string "true" keep embedding purchases until it is migrated, then keeps them in the migration\'s order', async () => {
    await insertLegacy(database.db, {
      books: [legacyBook(8, customers(3), { has_extras: "true" })],
      extraSales: [legacyExtraSales(8, customers(4, 3))],
    });

    expect(await recordPurchase(database.db, 8, "meanwhile", SETTINGS)).toMatchObject({ storedIn: "EMBEDDED" });
    expect((await salesCollection(database.db).findOne({ _id: 8 }))?.customers_purchased).toEqual([...customers(3), "meanwhile"]);
    await migrate();

    expect(await storedPurchases(database.db, "8")).toEqual([...customers(3), "meanwhile", ...customers(4, 3)]);
    expect(await storedBook(database.db, "8")).toMatchObject({ book: { has_extras: true, purchase_count: 8 } });
    expect(await invariantViolations(database.db, "8", SETTINGS)).toEqual([]);
  });

  it("lets the API record purchases on a migrated book, after the purchases that were migrated", async () => {
    await insertLegacy(database.db, {
      books: [legacyBook(7, customers(5), { has_extras: true })],
      extraSales: [legacyExtraSales(7, customers(6, 5))],
    });
    await expect(recordPurchase(database.db, 7, "before", SETTINGS)).rejects.toThrow(StoredDataError);

    await migrate();
    await recordPurchase(database.db, 7, "after", SETTINGS);

    expect(await storedPurchases(database.db, "7")).toEqual([...customers(11), "after"]);
    expect(await invariantViolations(database.db, "7", SETTINGS)).toEqual([]);
  });

  it("leaves books already in the bounded form untouched", async () => {
    await insertBoundedBook(database.db, "a", customers(3));
    await insertBoundedBook(database.db, "b", customers(30));
    const before = await snapshot(database.db);

    const report = await migrate();

    expect(report).toMatchObject({ booksChecked: 2, booksConverted: 0, purchasesMoved: 0, needsAttention: [] });
    expect(await snapshot(database.db)).toEqual(before);
  });

  it("gives the search its words for bounded books written without them or renamed since, and only those", async () => {
    await insertBoundedBook(database.db, "current", customers(3));
    await insertBoundedBook(database.db, "older", customers(3));
    await insertBoundedBook(database.db, "renamed", customers(3));
    await salesCollection(database.db).updateOne({ _id: "older" }, { $unset: { search_words: "" } });
    await salesCollection(database.db).updateOne({ _id: "renamed" }, { $set: { title: "Brontë's Œuvre" } });

    expect(await migrate({ dryRun: true })).toMatchObject({ searchWordsSet: 2 });
    expect((await storedBook(database.db, "older")).book?.search_words).toBeUndefined();
    expect(await migrate()).toMatchObject({ booksConverted: 0, searchWordsSet: 2, needsAttention: [] });

    // The whole words; the prefixes marked "*" after them are searchWordsOf's, which the unit tests check.
    const wordsOf = async (id: string) => (await storedBook(database.db, id)).book?.search_words?.filter((word) => !word.endsWith("*"));
    expect(await wordsOf("current")).toEqual(["bounded", "current", "an", "author"]);
    expect(await wordsOf("older")).toEqual(["bounded", "older", "an", "author"]);
    expect(await wordsOf("renamed")).toEqual(["bronte", "s", "oeuvre", "an", "author"]);
    expect((await storedBook(database.db, "renamed")).book?.search_words).toContain("oeuv*");
    expect(await migrate()).toMatchObject({ searchWordsSet: 0 });
  });

  it("reports and leaves alone what it cannot place in order: two legacy documents, or legacy extra sales of a bounded book", async () => {
    await insertLegacy(database.db, {
      books: [legacyBook(1, customers(5), { has_extras: true })],
      extraSales: [legacyExtraSales(1, customers(2, 5))],
      salesExtras: [legacyExtraSales(1, customers(2, 7)), legacyExtraSales("bounded", ["stray"]), legacyExtraSales("gone", ["orphan"])],
    });
    await insertBoundedBook(database.db, "bounded", customers(7));
    const before = await snapshot(database.db);

    const report = await migrate();

    expect(report.needsAttention).toEqual([
      { bookId: "1", reason: expect.stringContaining("2 legacy extra-sales documents") },
      { bookId: "bounded", reason: expect.stringContaining("its place in the purchase order is unknown") },
    ]);
    expect(report.orphanLegacyDocuments).toEqual([{ collection: "sales_extras", bookId: "gone" }]);
    expect(await snapshot(database.db)).toEqual(before);
  });

  it("in a dry run reports what it would change and writes nothing", async () => {
    const { fixture } = legacyCatalog();
    await insertLegacy(database.db, fixture);
    const before = await snapshot(database.db);

    const dryRun = await migrate({ dryRun: true });
    expect(await snapshot(database.db)).toEqual(before);

    const { dryRun: _, ...real } = await migrate();
    expect(dryRun).toEqual({ ...real, dryRun: true });
  });

  it("finds nothing to do on a second run and changes nothing", async () => {
    await insertLegacy(database.db, legacyCatalog().fixture);
    await migrate();
    const afterFirst = await snapshot(database.db);

    const second = await migrate();

    expect(second).toMatchObject({ booksChecked: 6, booksConverted: 0, purchasesMoved: 0, legacyDocumentsRemoved: 0, needsAttention: [] });
    expect(await snapshot(database.db)).toEqual(afterFirst);
  });

  it("stopped after any number of writes, finishes on the next run with every purchase once, in order", async () => {
    const { fixture, purchases } = legacyCatalog();
    await insertLegacy(database.db, fixture);
    const steps: MigrationStep[] = [];
    await migrate({ beforeWrite: (step) => void steps.push(step) });
    const uninterrupted = await snapshot(database.db, { withPageIds: false });
    expect(new Set(steps.map((step) => step.kind))).toEqual(new Set(["mark-legacy", "write-page", "commit-book", "remove-legacy"]));

    for (let writes = 0; writes <= steps.length; writes += 1) {
      await emptyCollections(database.db);
      await insertLegacy(database.db, legacyCatalog().fixture);
      await migrate({ beforeWrite: stopAfter(writes) }).catch((error: unknown) => {
        if (!(error instanceof StopHere)) throw error;
      });
      await migrate();
      await expectEveryPurchaseOnceInOrder(purchases);
      expect(await snapshot(database.db, { withPageIds: false })).toEqual(uninterrupted);
    }
  });

  it("keeps every purchase the API records between any two of its writes", async () => {
    const { fixture, purchases } = legacyCatalog();
    await insertLegacy(database.db, fixture);
    const acknowledged = new Map<BookId, string[]>([...purchases.keys()].map((id) => [id, []]));
    let purchase = 0;
    const recordOnEveryBook = async () => {
      for (const id of acknowledged.keys()) {
        const customer = `live-${(purchase += 1)}`;
        // Books not yet migrated and already past the threshold refuse purchases: refused is not lost.
        const stored = await recordPurchase(database.db, id, customer, SETTINGS).then(
          () => true,
          (error: unknown) => {
            if (error instanceof StoredDataError) return false;
            throw error;
          },
        );
        if (stored) acknowledged.get(id)!.push(customer);
      }
    };

    await migrate({ beforeWrite: recordOnEveryBook });
    await recordOnEveryBook();

    for (const [id, live] of acknowledged) {
      expect(await storedPurchases(database.db, formatBookId(id))).toEqual([...purchases.get(id)!, ...live]);
      expect(await invariantViolations(database.db, formatBookId(id), SETTINGS)).toEqual([]);
    }
    expect([...acknowledged.values()].flat().length).toBeGreaterThan(30);
  });

  it("loses none of many purchases racing the migration on the same books", async () => {
    await insertLegacy(database.db, {
      books: [legacyBook("hot", customers(3)), legacyBook("manual", customers(5), { has_extras: true })],
      extraSales: [legacyExtraSales("manual", customers(9, 5))],
    });
    const racers = Array.from({ length: 120 }, (_, index) => ({ bookId: index % 2 === 0 ? "hot" : "manual", customer: `racer-${index}` }));
    const acknowledged: typeof racers = [];

    await Promise.all([
      migrate(),
      ...racers.map(async (racer, index) => {
        await new Promise((resolve) => setTimeout(resolve, index % 20));
        await recordPurchase(database.db, racer.bookId, racer.customer, SETTINGS).then(
          () => acknowledged.push(racer),
          (error: unknown) => {
            if (!(error instanceof StoredDataError)) throw error;
          },
        );
      }),
    ]);
    await migrate();

    for (const [bookId, legacy] of [
      ["hot", customers(3)],
      ["manual", customers(14)],
    ] as const) {
      const stored = await storedPurchases(database.db, bookId);
      const live = acknowledged.filter((racer) => racer.bookId === bookId).map((racer) => racer.customer);
      expect(stored.slice(0, legacy.length)).toEqual(legacy);
      expect(stored.slice(legacy.length).sort()).toEqual([...live].sort());
      expect(await invariantViolations(database.db, bookId, SETTINGS)).toEqual([]);
    }
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(await salesCollection(database.db).countDocuments({ extra_page_size: { $exists: false } }, { hint: { _id: 1 } })).toBe(0);
  });
});

describe("npm run migrate as a command", () => {
  const target = () => ({ uri: process.env.TEST_MONGODB_URI, name: database.db.databaseName });

  it("says to set MONGODB_URI and exits 2 when it is unset, and exits 2 on an unknown flag", async () => {
    const unset = await runCommand("src/cli/migrate.ts", [], { name: database.db.databaseName });
    expect(unset.status).toBe(2);
    expect(unset.stderr).toContain("MONGODB_URI is not set");

    const badFlag = await runCommand("src/cli/migrate.ts", ["--dry-rn"], target());
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toContain("--dry-rn");
  });

  it("with --dry-run prints what it would change and writes nothing, then migrates without it", async () => {
    await insertLegacy(database.db, legacyCatalog().fixture);
    const before = await snapshot(database.db);

    const dryRun = await runCommand("src/cli/migrate.ts", ["--dry-run"], target());
    expect(dryRun).toMatchObject({ status: 0, stdout: expect.stringContaining("Dry run: nothing was written.") });
    expect(dryRun.stdout).toMatch(/books would be converted: +6/);
    expect(await snapshot(database.db)).toEqual(before);

    const run = await runCommand("src/cli/migrate.ts", [], target());
    expect(run).toMatchObject({ status: 0, stdout: expect.stringMatching(/books converted: +6/) });
    await expectEveryPurchaseOnceInOrder(legacyCatalog().purchases);
  });

  it("exits 1 and names the book when it leaves one as it was", async () => {
    await insertLegacy(database.db, {
      books: [legacyBook(9, customers(5), { has_extras: true })],
      extraSales: [legacyExtraSales(9, ["a"])],
      salesExtras: [legacyExtraSales(9, ["b"])],
    });

    const run = await runCommand("src/cli/migrate.ts", [], target());

    expect(run.status).toBe(1);
    expect(run.stdout).toContain("left as is: book 9: 2 legacy extra-sales documents");
  });
});
