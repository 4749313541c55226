// Issue 35, item 1: the fuzz set of searches a reader types, and what each costs, counted with explain. Shared by
// test/sales/search-cost.test.ts (a 3,002-book catalog) and the bench's catalog-size section (up to 1,000,002 books).
import { Faker, en } from "@faker-js/faker";
import type { CommandStartedEvent, Db, MongoClient } from "mongodb";
import { browseCatalog, catalogBrowseOf, countCatalog, orderKeyOf, type CatalogOrderField } from "../../src/sales/catalog";
import { salesCollection } from "../../src/sales/documents";
import { SearchTooBroadError } from "../../src/sales/errors";
import { examinedBy } from "./database";

/** The target: documents examined per book a search's window asks for, its count and the next window included. */
export const SEARCH_DOCS_PER_RESULT = 10;

/** A catalog for the fuzz set: generated titles and authors of real words, purchases kept few so that it loads fast. */
export const searchCatalogSpec = (books: number) => ({ seed: 35, books, outliers: 0, maxPurchases: 3 });

const ORDERS: CatalogOrderField[] = ["ID", "TITLE", "YEAR", "PURCHASE_COUNT"];

export interface CatalogWord {
  word: string;
  books: number;
}

/** Every whole word of the catalog's books with how many hold it, the commonest first. */
export async function catalogWords(db: Db): Promise<CatalogWord[]> {
  const counts = new Map<string, number>();
  for await (const { search_words } of salesCollection(db).find({}, { projection: { search_words: 1 } })) {
    // Whole words only: the prefixes stored beside them (marked "the*") are not what a reader types.
    for (const word of search_words ?? []) if (!word.endsWith("*")) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].map(([word, books]) => ({ word, books })).sort((a, b) => b.books - a.books || (a.word < b.word ? -1 : 1));
}

export interface FuzzSearch {
  search: string;
  first: number;
  field: CatalogOrderField;
}

/**
 * Searches a reader types: the most common words, words drawn at random, their prefixes of one to four
 * letters, and a common word with a rare prefix after it ("the zq" of the issue), each with a window size.
 */
export function searchFuzzSet(words: readonly CatalogWord[]): FuzzSearch[] {
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

/** The documents each command of `run` examined, from explain("executionStats") of every read it sent. */
export async function documentsExamined(client: MongoClient, db: Db, run: () => Promise<unknown>): Promise<number[]> {
  const sent: CommandStartedEvent[] = [];
  const listener = (event: CommandStartedEvent) => void (["find", "aggregate", "count"].includes(event.commandName) && sent.push(event));
  client.on("commandStarted", listener);
  await run().finally(() => client.off("commandStarted", listener));
  const figures = [];
  for (const { command } of sent) figures.push((await examinedBy(db, command)).docs);
  return figures;
}

export interface SearchFuzzFigures {
  searches: number;
  answered: number;
  /** Refused with SEARCH_TOO_BROAD before reading its window. */
  refused: number;
  /** The most documents any search examined per book its windows asked for. */
  maxDocsPerResult: number;
  /** The searches that examined more than SEARCH_DOCS_PER_RESULT per book asked for. */
  over: (FuzzSearch & { examined: number[] })[];
}

/**
 * Runs each search of the fuzz set as `books` does (its window and its count, then the next window from a cursor),
 * and counts the documents its reads examined (a client with command monitoring on is needed to see them).
 */
export async function measureSearchFuzz(client: MongoClient, db: Db, fuzz: readonly FuzzSearch[]): Promise<SearchFuzzFigures> {
  const figures: SearchFuzzFigures = { searches: fuzz.length, answered: 0, refused: 0, maxDocsPerResult: 0, over: [] };
  for (const { search, first, field } of fuzz) {
    const browse = catalogBrowseOf({ field, direction: "ASC", search });
    let searches = 1;
    const examined = await documentsExamined(client, db, async () => {
      try {
        const { books, query } = await browseCatalog(db, browse, { first, after: null }, 0);
        await countCatalog(db, query);
        figures.answered += 1;
        // The next window too, from a cursor: it reads the candidates once, not once per range after the cursor.
        const last = books.at(-1);
        if (!last) return;
        searches += 1;
        await browseCatalog(db, browse, { first, after: { key: orderKeyOf(last, field), id: last._id } }, 0);
      } catch (error) {
        if (!(error instanceof SearchTooBroadError)) throw error;
        figures.refused += 1;
      }
    });
    const perResult = examined.reduce((sum, docs) => sum + docs, 0) / (searches * first);
    figures.maxDocsPerResult = Math.max(figures.maxDocsPerResult, perResult);
    if (perResult > SEARCH_DOCS_PER_RESULT) figures.over.push({ search, first, field, examined });
  }
  return figures;
}
