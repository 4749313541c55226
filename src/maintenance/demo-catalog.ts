import { Faker, en } from "@faker-js/faker";
import { ObjectId, type Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { insertBooksWithPurchases, type BookWithPurchases, type BulkProgress } from "./bulk";
import { InvalidInputError } from "../sales/errors";

export interface CatalogSpec {
  /** The same seed always yields the same catalog. */
  seed: number;
  /** Generated books, besides the manual's two examples. */
  books: number;
  /** How many of them are outliers with tens of thousands of purchases. */
  outliers: number;
  /** Purchases of the largest outlier; the others step down from it, and no generated book has more. */
  maxPurchases: number;
}

/** Bounds that keep a generated catalog meaningful and within what one machine loads in minutes. */
export const CATALOG_LIMITS = { books: 10_000_000, maxPurchases: 10_000_000 } as const;

export const DEMO_CATALOG: CatalogSpec = { seed: 1972, books: 3000, outliers: 5, maxPurchases: 50_000 };

const CUSTOMER_POPULATION = 100_000;
/** Each generated author writes 1 to this many books, so that an author's page lists a few. */
const MAX_BOOKS_PER_AUTHOR = 6;
/** The long tail's own ceiling: a best-seller that is not one of the designated outliers. */
const LONG_TAIL_MAX = 5_000;

/** Refuses a spec that could not yield what it asks for, naming the field at fault. */
export function checkCatalogSpec(spec: CatalogSpec): void {
  const wholeNumber = (field: keyof CatalogSpec, min: number, max: number) => {
    const value = spec[field];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidInputError(`${field} must be a whole number from ${min} to ${max}, got ${value}.`, field);
    }
  };
  wholeNumber("seed", 0, Number.MAX_SAFE_INTEGER);
  wholeNumber("books", 0, CATALOG_LIMITS.books);
  wholeNumber("outliers", 0, spec.books);
  wholeNumber("maxPurchases", 0, CATALOG_LIMITS.maxPurchases);
}

/** The manual's customer ids: user00, user01, … user99, user100, … */
function manualCustomers(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `user${String(index).padStart(2, "0")}`);
}

/** The two books of MongoDB's outlier-pattern page, with the purchases its example shows. */
export function manualExampleBooks(): BookWithPurchases[] {
  return [
    { book: { id: 1, title: "Invisible Cities", author: "Italo Calvino", year: 1972 }, customers: manualCustomers(3) },
    { book: { id: 2, title: "The Wooden Amulet", author: "Lesley Moreno", year: 2023 }, customers: manualCustomers(1000) },
  ];
}

/**
 * A catalog whose sales follow a long tail, as real bookstores' do: most books sell a handful of
 * copies, a few sell hundreds, and `outliers` books sell tens of thousands.
 */
export function* generateCatalog(spec: CatalogSpec): Generator<BookWithPurchases> {
  checkCatalogSpec(spec);
  const faker = new Faker({ locale: en, seed: spec.seed });
  const outlierEvery = spec.outliers > 0 ? Math.floor(spec.books / spec.outliers) : Infinity;
  let author = { name: "", booksLeft: 0 };
  for (let index = 0; index < spec.books; index += 1) {
    if (author.booksLeft === 0)
      author = {
        name: `${faker.person.firstName()} ${faker.person.lastName()}`,
        booksLeft: faker.number.int({ min: 1, max: MAX_BOOKS_PER_AUTHOR }),
      };
    author.booksLeft -= 1;
    const outlierRank = index % outlierEvery === 0 ? index / outlierEvery : -1;
    const purchases =
      outlierRank >= 0 && outlierRank < spec.outliers
        ? Math.round(spec.maxPurchases * (1 - outlierRank / (spec.outliers * 1.25)))
        : Math.min(longTailPurchases(faker.number.float({ min: Number.EPSILON, max: 1 })), spec.maxPurchases);
    yield {
      book: {
        id: new ObjectId(faker.database.mongodbObjectId()),
        title: inventedTitle(faker),
        author: author.name,
        year: faker.number.int({ min: 1850, max: 2026 }),
      },
      customers: Array.from({ length: purchases }, () => `customer-${faker.number.int({ min: 1, max: CUSTOMER_POPULATION })}`),
    };
  }
}

/**
 * A title made up for the catalog, never a real book's: faker's real titles paired with real authors
 * gave "Crime and Punishment by Franz Kafka". An invented author with invented titles reads as a real shelf.
 */
function inventedTitle(faker: Faker): string {
  const noun = () => capitalized(faker.word.noun());
  const adjective = () => capitalized(faker.word.adjective());
  const shapes = [
    () => `The ${adjective()} ${noun()}`,
    () => `${noun()} of the ${noun()}`,
    () => `A ${noun()} in ${faker.location.city()}`,
    () => `The ${noun()}'s ${noun()}`,
    () => `${adjective()} ${noun()}`,
  ];
  return faker.helpers.arrayElement(shapes)();
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A Pareto-like draw: half the books sell at most one copy, one in a hundred sells more than 75. */
function longTailPurchases(uniform: number): number {
  return Math.min(Math.floor(2 / uniform ** 0.8) - 2, LONG_TAIL_MAX);
}

/**
 * Writes the manual's two example books and the generated catalog through the bulk path, which
 * leaves exactly the documents `recordPurchase` would. Both `npm start`'s demo data and
 * `npm run seed` load catalogs this way. Returns what was written.
 */
export async function loadCatalog(
  db: Db,
  spec: CatalogSpec,
  settings: OutlierSettings,
  onProgress?: (progress: BulkProgress) => void,
): Promise<BulkProgress> {
  checkCatalogSpec(spec);
  return insertBooksWithPurchases(db, catalogBooks(spec), settings, onProgress);
}

// A generator, so that a large catalog is generated batch by batch instead of held in memory whole.
function* catalogBooks(spec: CatalogSpec): Generator<BookWithPurchases> {
  yield* manualExampleBooks();
  yield* generateCatalog(spec);
}

/** How many books `loadCatalog` writes for a spec: the generated ones plus the manual's two. */
export function catalogSize(spec: CatalogSpec): number {
  return spec.books + manualExampleBooks().length;
}
