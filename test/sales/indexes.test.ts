import { indexLabel } from "../../src/db/indexes";
import { ensureSalesIndexes, findMissingSalesIndexes } from "../../src/sales/indexes";
import { openTestDatabase, type TestDatabase } from "../support/database";

let database: TestDatabase;
beforeAll(async () => void (database = await openTestDatabase()));
afterAll(() => database.close());

const indexNames = async (collection: string) => (await database.db.collection(collection).indexes()).map((index) => index.name).sort();

describe("ensureSalesIndexes", () => {
  it("creates the unique page index, the outlier flag index, the catalog's order, author and search indexes, the customers' multikey indexes and the purchaseId expiry index", async () => {
    expect(await indexNames("extra_sales")).toEqual(["_id_", "book_id_1_page_1", "customers_purchased_extra_1_book_id_1"]);
    expect(await indexNames("sales")).toEqual([
      "_id_",
      "author_1__id_1",
      "customers_purchased_1__id_1",
      "has_extras_1",
      "purchase_count_-1__id_1",
      "search_words_1__id_1",
      "search_words_1_title_1__id_1",
      "search_words_1_year_1__id_1",
      "title_1__id_1",
      "year_1__id_1",
    ]);
    expect(await indexNames("purchase_requests")).toEqual(["_id_", "expires_at_1"]);
  });

  it("changes nothing when run again at the next start-up", async () => {
    const before = await Promise.all(["extra_sales", "sales", "purchase_requests"].map((name) => database.db.collection(name).indexes()));
    expect(await ensureSalesIndexes(database.db)).toEqual([]);
    const after = await Promise.all(["extra_sales", "sales", "purchase_requests"].map((name) => database.db.collection(name).indexes()));
    expect(after).toEqual(before);
  });

  it("finds an index that was dropped, or whose collection was, and creates only what is missing", async () => {
    await database.db.collection("extra_sales").drop();
    await database.db.collection("sales").dropIndex("has_extras_1");
    const missing = ["extra_sales.book_id_1_page_1", "sales.has_extras_1", "extra_sales.customers_purchased_extra_1_book_id_1"];
    expect((await findMissingSalesIndexes(database.db)).map(indexLabel)).toEqual(missing);
    expect((await ensureSalesIndexes(database.db)).map(indexLabel)).toEqual(missing);
    expect(await findMissingSalesIndexes(database.db)).toEqual([]);
    expect(await indexNames("extra_sales")).toEqual(["_id_", "book_id_1_page_1", "customers_purchased_extra_1_book_id_1"]);
  });

  it("takes an index of the right name but without its uniqueness as missing, and fails to create it over the impostor", async () => {
    await database.db.collection("extra_sales").dropIndex("book_id_1_page_1");
    await database.db.collection("extra_sales").createIndex({ book_id: 1, page: 1 }, { name: "book_id_1_page_1" });
    expect((await findMissingSalesIndexes(database.db)).map(indexLabel)).toEqual(["extra_sales.book_id_1_page_1"]);
    await expect(ensureSalesIndexes(database.db)).rejects.toMatchObject({ code: 85 });
    await database.db.collection("extra_sales").dropIndex("book_id_1_page_1");
    await ensureSalesIndexes(database.db);
  });
});
