import { seedTool } from "../../src/cli/seed";
import { runTool } from "../../src/cli/tool";
import { formatBookId } from "../../src/sales/book-ids";
import { generateCatalog, type CatalogSpec } from "../../src/maintenance/demo-catalog";
import { extraSalesCollection, salesCollection } from "../../src/sales/documents";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { invariantViolations, storedPurchases } from "../support/factories";

const SMALL = { seed: 11, books: 30, outliers: 2, maxPurchases: 1_200 } satisfies CatalogSpec;
const flagsFor = (spec: CatalogSpec) => [
  "--seed",
  String(spec.seed),
  "--books",
  String(spec.books),
  "--outliers",
  String(spec.outliers),
  "--max-purchases",
  String(spec.maxPurchases),
];

const databases: TestDatabase[] = [];
async function freshDatabase(): Promise<TestDatabase> {
  const database = await openTestDatabase();
  databases.push(database);
  return database;
}
afterAll(() => Promise.all(databases.map((database) => database.close())));

async function runSeed(database: TestDatabase | null, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const env = database ? { MONGODB_URI: process.env.TEST_MONGODB_URI, MONGODB_DB: database.db.databaseName } : {};
  const status = await runTool(seedTool, args, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out: out.join("\n"), err: err.join("\n") };
}

const everyDocument = async (database: TestDatabase) => ({
  sales: await salesCollection(database.db).find().sort({ _id: 1 }).toArray(),
  extraSales: await extraSalesCollection(database.db)
    .find({}, { projection: { _id: 0 } })
    .sort({ book_id: 1, page: 1 })
    .toArray(),
});

describe("npm run seed", () => {
  it("writes the manual's two books and the generated catalog with every purchase in order", async () => {
    const database = await freshDatabase();
    const result = await runSeed(database, flagsFor(SMALL));

    expect(result).toMatchObject({ status: 0, err: "" });
    expect(result.out).toMatch(/32 books/);
    for (const { book, customers } of generateCatalog(SMALL)) {
      const id = formatBookId(book.id);
      expect(await storedPurchases(database.db, id)).toEqual(customers);
      expect(await invariantViolations(database.db, id)).toEqual([]);
    }
    expect(await storedPurchases(database.db, "2")).toHaveLength(1000);
  });

  it("writes identical documents for the same seed", async () => {
    const [one, other] = [await freshDatabase(), await freshDatabase()];
    await runSeed(one, flagsFor(SMALL));
    await runSeed(other, flagsFor(SMALL));

    expect(await everyDocument(other)).toEqual(await everyDocument(one));
  });

  it("refuses to write into a database that already holds books, and writes nothing", async () => {
    const database = await freshDatabase();
    await runSeed(database, flagsFor(SMALL));
    const result = await runSeed(database, flagsFor({ ...SMALL, seed: 12 }));

    expect(result.status).toBe(1);
    expect(result.err).toMatch(/already holds 32 sales .*--drop/);
    expect(await salesCollection(database.db).countDocuments()).toBe(32);
  });

  it("replaces the catalog with --drop and keeps the unique page index", async () => {
    const database = await freshDatabase();
    await runSeed(database, flagsFor(SMALL));
    const result = await runSeed(database, [...flagsFor({ ...SMALL, books: 5, outliers: 1 }), "--drop"]);

    expect(result.status).toBe(0);
    expect(await salesCollection(database.db).countDocuments()).toBe(7);
    const indexes = await extraSalesCollection(database.db).listIndexes().toArray();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { book_id: 1, page: 1 }, unique: true }));
  });

  it("exits with status 2 and names MONGODB_URI when it is unset", async () => {
    const result = await runSeed(null, []);
    expect(result.status).toBe(2);
    expect(result.err).toMatch(/^MONGODB_URI is not set/);
  });

  it.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [["--books", "many"], /--books must be a whole number, got "many"/],
    // Not node's "ambiguous": a negative number after a flag is its value, refused as any other.
    [["--books", "-5"], /--books must be a whole number, got "-5"/],
    [["--books", "3", "--outliers", "4", "--drop"], /outliers must be a whole number from 0 to 3/],
  ])("exits with status 2, prints the usage and leaves the catalog alone for %p", async (args, message) => {
    const database = await freshDatabase();
    await runSeed(database, flagsFor(SMALL));
    const result = await runSeed(database, args);

    expect(result.status).toBe(2);
    expect(result.err).toMatch(message);
    expect(result.err).toMatch(/Usage: npm run seed/);
    expect(await salesCollection(database.db).countDocuments()).toBe(32);
  });

  it("prints its usage for --help", async () => {
    const result = await runSeed(null, ["--help"]);
    expect(result).toMatchObject({ status: 0, out: expect.stringMatching(/^Usage: npm run seed/) });
  });
});
