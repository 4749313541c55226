import { ensureIndexes } from "../../src/db/indexes";
import { openTestDatabase, type TestDatabase } from "../support/database";

let database: TestDatabase;
beforeAll(async () => void (database = await openTestDatabase()));
afterAll(() => database.close());

const indexNames = async (collection: string) => (await database.db.collection(collection).indexes()).map((index) => index.name).sort();

describe("ensureIndexes", () => {
  it("creates the unique page index, the outlier flag index and the purchaseId expiry index", async () => {
    expect(await indexNames("extra_sales")).toEqual(["_id_", "book_id_1_page_1"]);
    expect(await indexNames("sales")).toEqual(["_id_", "has_extras_1"]);
    expect(await indexNames("purchase_requests")).toEqual(["_id_", "expires_at_1"]);
  });

  it("changes nothing when run again at the next start-up", async () => {
    const before = await Promise.all(["extra_sales", "sales", "purchase_requests"].map((name) => database.db.collection(name).indexes()));
    await ensureIndexes(database.db);
    const after = await Promise.all(["extra_sales", "sales", "purchase_requests"].map((name) => database.db.collection(name).indexes()));
    expect(after).toEqual(before);
  });
});
