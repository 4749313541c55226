import type { CommandStartedEvent, Document } from "mongodb";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import type { ExtraSalesWindow } from "../../src/sales/book-buyers";
import { parseBookId } from "../../src/sales/book-ids";
import type { BookId } from "../../src/sales/documents";
import { createSalesLoaders, WINDOWS_PER_READ } from "../../src/sales/loaders";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers } from "../support/factories";

// A batch of windows finds each page's own windows by key (issue 39): whatever the batch holds, each window
// answers what it answers alone, for every kind of book id.

const settings = { outlierThreshold: 3, extraSalesPageSize: 4 };
/** 3 embedded, then extra_sales pages 0 and 1 full (4 each) and page 2 holding 2. */
const PURCHASES = 13;

/** The awkward ids beside plain ones: the number 7 and the string "7", "$"- and "."-names, an ObjectId. */
const BOOK_IDS: BookId[] = [
  7,
  "7",
  parseBookId("$odd"),
  parseBookId("a.b"),
  parseBookId("64b7f0c2a1b2c3d4e5f60718"),
  ...Array.from({ length: 7 }, (_, index) => parseBookId(`plain-${index}`)),
];

/** Windows of one page (two on page 0: aliases), one past the last page, and tails from several pages. */
function windowsOf(bookId: BookId): ExtraSalesWindow[] {
  return [
    { bookId, page: 0, skip: 0, limit: 4 },
    { bookId, page: 0, skip: 1, limit: 2 },
    { bookId, page: 1, skip: 3, limit: 1 },
    { bookId, page: 2, skip: 0, limit: 5 },
    { bookId, page: 3, skip: 0, limit: 1 },
    { bookId, fromPage: 0, tail: 2 },
    { bookId, fromPage: 1, tail: 3 },
    { bookId, fromPage: 2, tail: 0 },
  ];
}

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
  const books = BOOK_IDS.map((id, index) => ({
    book: { id, title: `Windowed ${index}`, author: "A" },
    customers: customers(PURCHASES, 0, `b${index}-`),
  }));
  await insertBooksWithPurchases(database.db, books, settings);
});
afterAll(() => database.close());

describe("extra-sales windows read in one batch", () => {
  it("answer each window exactly as it is answered alone, across many books and windows per book", async () => {
    const windows = BOOK_IDS.flatMap(windowsOf);
    expect(windows.length).toBeGreaterThan(WINDOWS_PER_READ);

    const batched = await createSalesLoaders(database.db).extraSalesWindow.loadMany(windows);
    const alone = [];
    for (const window of windows) alone.push(await createSalesLoaders(database.db, { batch: false }).extraSalesWindow.load(window));

    expect(batched).toEqual(alone);
    // Not vacuous: the string "7" and the number 7 are told apart, and "$odd"'s newest two come from page 2.
    expect(alone[8 * BOOK_IDS.indexOf("7")]).toEqual([{ page: 0, length: 4, offset: 0, customers: customers(4, 3, "b1-") }]);
    expect(alone[8 * 2 + 5]).toEqual([
      { page: 0, length: 4, offset: 2, customers: customers(2, 5, "b2-") },
      { page: 1, length: 4, offset: 2, customers: customers(2, 9, "b2-") },
      { page: 2, length: 2, offset: 0, customers: customers(2, 11, "b2-") },
    ]);
  });

  it("send each page the same expressions whatever the batch holds: only the literal tables of windows grow", async () => {
    const windows = BOOK_IDS.flatMap(windowsOf).slice(0, WINDOWS_PER_READ);
    const sent: Document[] = [];
    const listener = (event: CommandStartedEvent) => void (event.commandName === "aggregate" && sent.push(event.command));
    database.client.on("commandStarted", listener);
    try {
      await createSalesLoaders(database.db).extraSalesWindow.load(windows[0]!);
      await createSalesLoaders(database.db).extraSalesWindow.loadMany(windows);
    } finally {
      database.client.off("commandStarted", listener);
    }

    const [one, fifty] = sent.map((command) => JSON.stringify(projectStage(command), (_key, value: unknown) => literalShape(value)));
    expect(sent).toHaveLength(2);
    expect(fifty).toEqual(one);
  });
});

function projectStage(command: Document): unknown {
  return (command.pipeline as Document[]).find((stage) => "$project" in stage);
}

/** A `$literal` table stands for its kind, not its length: the data of the batch, not work per page. */
function literalShape(value: unknown): unknown {
  return typeof value === "object" && value !== null && "$literal" in value ? { $literal: "table" } : value;
}
