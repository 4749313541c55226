import { parseBookId } from "../../src/sales/book-ids";
import { createBook } from "../../src/sales/books";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import { recordPurchase } from "../../src/sales/purchases";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, storedBook } from "../support/factories";

const settings = { outlierThreshold: 5, extraSalesPageSize: 4 };

let database: TestDatabase;
beforeAll(async () => void (database = await openTestDatabase()));
afterAll(() => database.close());

describe("the bulk load path", () => {
  it.each([0, 5, 6, 9, 13, 30])("writes the same documents as %p purchases recorded one by one", async (purchases) => {
    const buyers = customers(purchases);
    const recorded = `recorded-${purchases}`;
    await createBook(database.db, { id: recorded, title: "Same", author: "Same", year: 2001 }, settings);
    for (const customer of buyers) await recordPurchase(database.db, recorded, customer, settings);

    const bulk = `bulk-${purchases}`;
    await insertBooksWithPurchases(
      database.db,
      [{ book: { id: parseBookId(bulk), title: "Same", author: "Same", year: 2001 }, customers: buyers }],
      settings,
    );

    const one = await storedBook(database.db, recorded);
    const other = await storedBook(database.db, bulk);
    expect({ ...other.book, _id: recorded }).toStrictEqual(one.book);
    expect(other.pages.map((page) => ({ ...page, book_id: recorded }))).toStrictEqual(one.pages);
  });

  it("writes fields in the order the server leaves them after recordPurchase", async () => {
    await createBook(database.db, { id: "order-recorded", title: "T", author: "A" }, settings);
    for (const customer of customers(7)) await recordPurchase(database.db, "order-recorded", customer, settings);
    await insertBooksWithPurchases(
      database.db,
      [{ book: { id: "order-bulk", title: "T", author: "A" }, customers: customers(7) }],
      settings,
    );

    const recorded = await storedBook(database.db, "order-recorded");
    const bulk = await storedBook(database.db, "order-bulk");
    expect(Object.keys(bulk.book!)).toEqual(Object.keys(recorded.book!));
    expect(Object.keys(bulk.pages[0]!)).toEqual(Object.keys(recorded.pages[0]!));
  });

  it("reports its progress in books and purchases", async () => {
    const reports: { books: number; purchases: number }[] = [];
    const books = Array.from({ length: 3 }, (_, index) => ({
      book: { id: `progress-${index}`, title: "T", author: "A" },
      customers: customers(index),
    }));
    const total = await insertBooksWithPurchases(database.db, books, settings, (progress) => reports.push(progress));
    expect(total).toEqual({ books: 3, purchases: 3 });
    expect(reports.at(-1)).toEqual(total);
  });
});
