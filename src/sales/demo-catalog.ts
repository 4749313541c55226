import { Faker, en } from "@faker-js/faker";
import { ObjectId } from "mongodb";
import type { BookWithPurchases } from "./bulk";

export interface CatalogSpec {
  /** The same seed always yields the same catalog. */
  seed: number;
  /** Generated books, besides the manual's two examples. */
  books: number;
  /** How many of them are outliers with tens of thousands of purchases. */
  outliers: number;
  /** Purchases of the largest outlier; the others step down from it. */
  maxPurchases: number;
}

export const DEMO_CATALOG: CatalogSpec = { seed: 1972, books: 3000, outliers: 5, maxPurchases: 50_000 };

const CUSTOMER_POPULATION = 100_000;

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
  const faker = new Faker({ locale: en, seed: spec.seed });
  const outlierEvery = spec.outliers > 0 ? Math.floor(spec.books / spec.outliers) : Infinity;
  for (let index = 0; index < spec.books; index += 1) {
    const outlierRank = index % outlierEvery === 0 ? index / outlierEvery : -1;
    const purchases =
      outlierRank >= 0 && outlierRank < spec.outliers
        ? Math.round(spec.maxPurchases * (1 - outlierRank / (spec.outliers * 1.25)))
        : longTailPurchases(faker.number.float({ min: Number.EPSILON, max: 1 }));
    yield {
      book: {
        id: new ObjectId(faker.database.mongodbObjectId()),
        title: faker.book.title(),
        author: faker.book.author(),
        year: faker.number.int({ min: 1850, max: 2026 }),
      },
      customers: Array.from({ length: purchases }, () => `customer-${faker.number.int({ min: 1, max: CUSTOMER_POPULATION })}`),
    };
  }
}

/** A Pareto-like draw: half the books sell at most one copy, one in a hundred sells more than 75. */
function longTailPurchases(uniform: number): number {
  return Math.min(Math.floor(2 / uniform ** 0.8) - 2, 5_000);
}
