import type { CommandStartedEvent } from "mongodb";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import {
  browseCatalog,
  catalogBrowseOf,
  countCatalog,
  orderKeyOf,
  type CatalogBrowse,
  type CatalogPosition,
} from "../../src/sales/catalog";
import { TEST_SETTINGS } from "../support/api";
import { examinedBy, openTestDatabase, type TestDatabase } from "../support/database";
import { customers } from "../support/factories";

const BOOKS = 400;
const WINDOW = 5;

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
  // Every book ties on its count, so a deep page lies deep inside one tie group; ten share the word "amulet", five an author.
  const books = Array.from({ length: BOOKS }, (_, index) => ({
    book: {
      id: index + 1,
      title: index < 10 ? "The Amulet" : "A Volume",
      author: `Author ${Math.ceil((index + 1) / 5)}`,
      year: 1900 + (index % 50),
    },
    customers: customers(2, 0, `b${index}-`),
  }));
  await insertBooksWithPurchases(database.db, books, TEST_SETTINGS);
});
afterAll(() => database.close());

/** The keys and documents each read of `run` examined, from explain("executionStats") of the commands it sent. */
async function examined(run: () => Promise<unknown>): Promise<{ keys: number; docs: number }[]> {
  const sent: CommandStartedEvent[] = [];
  const listener = (event: CommandStartedEvent) => void (["find", "aggregate", "count"].includes(event.commandName) && sent.push(event));
  database.client.on("commandStarted", listener);
  await run().finally(() => database.client.off("commandStarted", listener));
  const figures = [];
  for (const { command } of sent) figures.push(await examinedBy(database.db, command));
  return figures;
}

/** The position of the book at `depth` in the browse, as a cursor would carry it. */
async function positionAt(browse: CatalogBrowse, depth: number): Promise<CatalogPosition> {
  let after: CatalogPosition | null = null;
  for (let read = 0; read < depth; read += 100) {
    const { books } = await browseCatalog(database.db, browse, { first: Math.min(100, depth - read), after }, 0);
    const last = books.at(-1)!;
    after = { key: orderKeyOf(last, browse.field), id: last._id };
  }
  return after!;
}

describe("browsing the catalog reads only what a window shows", () => {
  it.each([
    ["bestsellers", { field: "PURCHASE_COUNT", direction: "DESC" }],
    ["bestsellers backward", { field: "PURCHASE_COUNT", direction: "ASC" }],
    ["titles", { field: "TITLE", direction: "DESC" }],
    ["years", { field: "YEAR", direction: "ASC" }],
    ["ids", { field: "ID", direction: "DESC" }],
  ] as const)("examines about a window's keys and documents for a page of %s deep inside the list", async (_name, order) => {
    const browse = catalogBrowseOf(order);
    const after = await positionAt(browse, 300);
    const figures = await examined(() => browseCatalog(database.db, browse, { first: WINDOW, after }, 0));
    // One query while the window stays within the cursor's tie group; crossing into the next key takes a query per id type and one more.
    expect(figures.length).toBeLessThanOrEqual(4);
    expect(figures.reduce((sum, figure) => sum + figure.keys, 0)).toBeLessThanOrEqual(WINDOW + figures.length);
    expect(figures.reduce((sum, figure) => sum + figure.docs, 0)).toBe(WINDOW + 1);
  });

  it("reads an author's page and count from the author's books alone", async () => {
    const browse = catalogBrowseOf({ field: "PURCHASE_COUNT", direction: "DESC", filter: { author: "Author 7" } });
    const figures = await examined(async () => {
      const { query } = await browseCatalog(database.db, browse, { first: WINDOW, after: null }, 0);
      expect(await countCatalog(database.db, query)).toBe(5);
    });
    expect(figures).toEqual([
      { keys: 5, docs: 5 },
      { keys: 5, docs: 5 },
    ]);
  });

  it("reads a search's page and count from the books holding its word alone", async () => {
    const browse = catalogBrowseOf({ field: "ID", direction: "ASC", search: "amul" });
    const figures = await examined(async () => {
      const { query } = await browseCatalog(database.db, browse, { first: WINDOW, after: null }, 0);
      expect(await countCatalog(database.db, query)).toBe(10);
    });
    // The window and the one book that says more follow, in id order from the prefix's key; the count reads keys only.
    expect(figures.map((figure) => figure.docs)).toEqual([WINDOW + 1, 0]);
    expect(figures.every((figure) => figure.keys <= 11)).toBe(true);
  });
});
