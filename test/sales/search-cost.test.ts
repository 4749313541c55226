import { loadCatalog } from "../../src/maintenance/demo-catalog";
import { browseCatalog, catalogBrowseOf, countCatalog } from "../../src/sales/catalog";
import { salesCollection } from "../../src/sales/documents";
import { SearchTooBroadError } from "../../src/sales/errors";
import { TEST_SETTINGS } from "../support/api";
import { openTestDatabase, type TestDatabase } from "../support/database";
import {
  catalogWords,
  documentsExamined,
  measureSearchFuzz,
  searchCatalogSpec,
  searchFuzzSet,
  type CatalogWord,
} from "../support/search-fuzz";

// Issue 35, item 1: a search examines at most ten documents per book its window asks for, on a generated
// catalog of 3,002 books, for every query of a fuzz set of its real words and prefixes; what it cannot
// read within that is refused with SEARCH_TOO_BROAD before its window is read. A search of one term, however
// common, is one range of an index in its order, and reads only its window. The bench measures the same fuzz
// set on catalogs up to 1,000,002 books (bench/scenarios/catalog-scale.ts).

let database: TestDatabase;
let words: CatalogWord[];
beforeAll(async () => {
  database = await openTestDatabase();
  await loadCatalog(database.db, searchCatalogSpec(3000), TEST_SETTINGS);
  words = await catalogWords(database.db);
});
afterAll(() => database.close());

const examined = (run: () => Promise<unknown>) => documentsExamined(database.client, database.db, run);

/** Ascending, as the index orders these keys: null first, then numbers, then strings. */
function compare(a: unknown, b: unknown): number {
  const rank = (value: unknown) => (value === null ? 0 : typeof value === "number" ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}

describe("a search of the catalog", () => {
  it("examines at most ten documents per book asked for, window and count, or is refused with SEARCH_TOO_BROAD", async () => {
    const figures = await measureSearchFuzz(database.client, database.db, searchFuzzSet(words));
    expect(figures.over).toEqual([]);
    // Neither side empty: the set holds searches a window can answer and searches too broad for theirs.
    expect(figures.answered).toBeGreaterThan(50);
    expect(figures.refused).toBeGreaterThan(20);
  });

  it.each(["ID", "TITLE", "YEAR"] as const)(
    "answers the commonest word by %s from its window alone, the books holding it in order, and counts them from the index",
    async (field) => {
      const [{ word, books }] = words as [{ word: string; books: number }];
      expect(books).toBeGreaterThan(100 * 3);
      const browse = catalogBrowseOf({ field, direction: "ASC", search: word });
      let window: Awaited<ReturnType<typeof browseCatalog>> | undefined;
      const docs = await examined(async () => {
        window = await browseCatalog(database.db, browse, { first: 1, after: null }, 0);
        expect(await countCatalog(database.db, window.query)).toBe(Math.min(books, 1000));
      });
      // The window's one book and the one after it that says another page follows; the count fetches nothing.
      expect(docs).toEqual([2, 0]);
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
    const docs = await examined(() => browseCatalog(database.db, browse, { first: 20, after: null }, 0).catch((e) => (error = e)));
    expect(error).toBeInstanceOf(SearchTooBroadError);
    expect(docs.every((count) => count === 0)).toBe(true);
  });
});
