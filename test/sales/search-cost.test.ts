import { Faker, en } from "@faker-js/faker";
import type { CommandStartedEvent } from "mongodb";
import { loadCatalog } from "../../src/maintenance/demo-catalog";
import { browseCatalog, catalogBrowseOf, countCatalog, orderKeyOf, type CatalogOrderField } from "../../src/sales/catalog";
import { salesCollection } from "../../src/sales/documents";
import { SearchTooBroadError } from "../../src/sales/errors";
import { TEST_SETTINGS } from "../support/api";
import { examinedBy, openTestDatabase, type TestDatabase } from "../support/database";

// Issue 35, item 1: a search examines at most ten documents per book its window asks for, on a generated
// catalog of 3,002 books, for every query of a fuzz set of its real words and prefixes; what it cannot
// read within that is refused with SEARCH_TOO_BROAD before its window is read. A search of one term, however
// common, is one range of an index in its order, and reads only its window.

const PER_RESULT = 10;
const ORDERS: CatalogOrderField[] = ["ID", "TITLE", "YEAR", "PURCHASE_COUNT"];

let database: TestDatabase;
let words: { word: string; books: number }[];
beforeAll(async () => {
  database = await openTestDatabase();
  await loadCatalog(database.db, { seed: 35, books: 3000, outliers: 0, maxPurchases: 3 }, TEST_SETTINGS);
  const counts = new Map<string, number>();
  for await (const { search_words } of salesCollection(database.db).find({}, { projection: { search_words: 1 } })) {
    // Whole words only: the prefixes stored beside them (marked "the*") are not what a reader types.
    for (const word of search_words ?? []) if (!word.endsWith("*")) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  words = [...counts].map(([word, books]) => ({ word, books })).sort((a, b) => b.books - a.books || (a.word < b.word ? -1 : 1));
}, 120_000);
afterAll(() => database.close());

/** The documents each command of `run` examined, from explain("executionStats") of every read it sent. */
async function documentsExamined(run: () => Promise<unknown>): Promise<number[]> {
  const sent: CommandStartedEvent[] = [];
  const listener = (event: CommandStartedEvent) => void (["find", "aggregate", "count"].includes(event.commandName) && sent.push(event));
  database.client.on("commandStarted", listener);
  await run().finally(() => database.client.off("commandStarted", listener));
  const figures = [];
  for (const { command } of sent) figures.push((await examinedBy(database.db, command)).docs);
  return figures;
}

/**
 * Searches a reader types: the most common words, words drawn at random, their prefixes of one to four
 * letters, and a common word with a rare prefix after it ("the zq" of the issue), each with a window size.
 */
function fuzzSet(): { search: string; first: number; field: CatalogOrderField }[] {
  const faker = new Faker({ locale: en, seed: 35 });
  const common = words.slice(0, 15).map(({ word }) => word);
  const drawn = Array.from({ length: 25 }, () => faker.helpers.arrayElement(words).word);
  const typed = [...common, ...drawn].flatMap((word) => [word, ...[1, 2, 3, 4].map((length) => word.slice(0, length))]);
  const pairs = common.flatMap((word) => [`${word} zq`, `${word} ${faker.helpers.arrayElement(drawn).slice(0, 3)}`]);
  return [...new Set([...typed, ...pairs, "t", "the zq"])].map((search) => ({
    search,
    first: faker.helpers.arrayElement([1, 5, 20, 100]),
    field: faker.helpers.arrayElement(ORDERS),
  }));
}

/** Ascending, as the index orders these keys: null first, then numbers, then strings. */
function compare(a: unknown, b: unknown): number {
  const rank = (value: unknown) => (value === null ? 0 : typeof value === "number" ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}

describe("a search of the catalog", () => {
  it("examines at most ten documents per book asked for, window and count, or is refused with SEARCH_TOO_BROAD", async () => {
    const outcomes = { answered: 0, refused: 0 };
    const over = [];
    for (const { search, first, field } of fuzzSet()) {
      const browse = catalogBrowseOf({ field, direction: "ASC", search });
      let searches = 1;
      const examined = await documentsExamined(async () => {
        try {
          const { books, query } = await browseCatalog(database.db, browse, { first, after: null }, 0);
          await countCatalog(database.db, query);
          outcomes.answered += 1;
          // The next window too, from a cursor: it reads the candidates once, not once per range after the cursor.
          const last = books.at(-1);
          if (!last) return;
          searches += 1;
          await browseCatalog(database.db, browse, { first, after: { key: orderKeyOf(last, field), id: last._id } }, 0);
        } catch (error) {
          if (!(error instanceof SearchTooBroadError)) throw error;
          outcomes.refused += 1;
        }
      });
      const total = examined.reduce((sum, docs) => sum + docs, 0);
      if (total > searches * PER_RESULT * first) over.push({ search, first, field, examined });
    }
    expect(over).toEqual([]);
    // Neither side empty: the set holds searches a window can answer and searches too broad for theirs.
    expect(outcomes.answered).toBeGreaterThan(50);
    expect(outcomes.refused).toBeGreaterThan(20);
  }, 300_000);

  it.each(["ID", "TITLE", "YEAR"] as const)(
    "answers the commonest word by %s from its window alone, the books holding it in order, and counts them from the index",
    async (field) => {
      const [{ word, books }] = words as [{ word: string; books: number }];
      expect(books).toBeGreaterThan(100 * 3);
      const browse = catalogBrowseOf({ field, direction: "ASC", search: word });
      let window: Awaited<ReturnType<typeof browseCatalog>> | undefined;
      const examined = await documentsExamined(async () => {
        window = await browseCatalog(database.db, browse, { first: 1, after: null }, 0);
        expect(await countCatalog(database.db, window.query)).toBe(Math.min(books, 1000));
      });
      // The window's one book and the one after it that says another page follows; the count fetches nothing.
      expect(examined).toEqual([2, 0]);
      const key = (book: { title: string; year?: number | null; _id: unknown }) =>
        field === "TITLE" ? book.title : field === "YEAR" ? (book.year ?? null) : null;
      const holding = await salesCollection(database.db)
        .find({ search_words: new RegExp(`^${word}`) }, { hint: "search_words_1__id_1" })
        .toArray();
      const first = holding.sort((a, b) => compare(key(a), key(b)) || compare(a._id, b._id))[0];
      expect(window?.books.map(({ _id }) => _id)).toEqual([first?._id]);
    },
  );

  it.each([
    ["a common word and a prefix of two letters", "the zq"],
    ["one letter", "t"],
  ])("refuses %s with SEARCH_TOO_BROAD, having fetched no book", async (_name, search) => {
    const browse = catalogBrowseOf({ field: "TITLE", direction: "ASC", search });
    let error: unknown;
    const examined = await documentsExamined(() =>
      browseCatalog(database.db, browse, { first: 20, after: null }, 0).catch((e) => (error = e)),
    );
    expect(error).toBeInstanceOf(SearchTooBroadError);
    expect(examined.every((docs) => docs === 0)).toBe(true);
  });
});
