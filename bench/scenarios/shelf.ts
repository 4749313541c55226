import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "mongodb";
import type { Config, OutlierSettings } from "../../src/config";
import type { DatabaseConnection } from "../../src/db/connection";
import type { SelectedDatabase } from "../../src/db/select-database";
import { customerIds, seedBook } from "../kit/catalog";
import { startChild, type Child } from "../kit/children";
import { withDatabaseApart, type DatabaseApart } from "../kit/database-apart";
import { graphql, type Scenario } from "../kit/http";

/** The shelf of books the HTTP scenarios read, and the requests they send to it. */

export const SHELF_BOOKS = 60;
const SHELF_PURCHASES = 8;
// Stored with this threshold, each shelf book's first 5 buyers span the embedded array and page 0,
// so listing them needs the extra sales: the case batching exists for. With the default threshold
// they would all be embedded and the listing would cost the same with or without batching.
export const SHELF_THRESHOLD = 3;
const LISTING_BUYERS = 5;

const operation = (name: string) =>
  readFileSync(join(__dirname, "..", "..", "examples", "storefront", "operations", `${name}.graphql`), "utf8");
export const LIST_BOOKS = operation("ListBooks");
export const BOOK_BUYERS = operation("BookBuyers");
export const RECORD_PURCHASE = operation("RecordPurchase");
export const BROWSE_BOOKS = operation("BrowseBooks");

export const OVERHEAD: Scenario = { name: "{ __typename } (server overhead)", body: () => graphql("{ __typename }", {}) };

/**
 * The least a request that reads the database can cost: one book by id, one `find` on `_id`. Any
 * listing costs at least this, so its share of `{ __typename }` bounds what a listing can reach.
 */
export const ONE_ROUND_TRIP: Scenario = {
  name: 'book(id: "1") { title } (one round trip)',
  body: () => graphql('query { book(id: "1") { title } }', {}),
};

/**
 * The catalog listing's public fields, the listing without buyers: within CATALOG_MAX_AGE_SECONDS
 * (5 s by default) the API answers it from its response cache, with no database command.
 */
export const CACHED_LISTING: Scenario = {
  name: "catalog listing of 5 books, public fields only (from the response cache)",
  body: () => graphql("query { books(first: 5) { totalCount edges { node { id title purchaseCount } } } }", {}),
};

export function listingScenario(books: number): Scenario {
  return {
    name: `storefront listing: books(first: ${books}) with ${LISTING_BUYERS} buyers each`,
    body: () => graphql(LIST_BOOKS, { first: books, buyers: LISTING_BUYERS }),
  };
}

/** The books the listings show: each one's first buyers span the embedded array and page 0. */
export async function seedShelf(db: Db, settings: OutlierSettings): Promise<void> {
  const shelfSettings = { ...settings, outlierThreshold: SHELF_THRESHOLD };
  for (let book = 1; book <= SHELF_BOOKS; book += 1) await seedBook(db, book, shelfCustomers(book), shelfSettings);
}

export const shelfCustomers = (book: number) => customerIds(`shelf-${book}-`, SHELF_PURCHASES);

/** The database the servers under load read: where it runs, and the environment that points a server process at it. */
export type ShelfApart = Omit<DatabaseApart, "db">;

/** Where a section seeds the shelf: the run's database, how a connection to it opens, the settings the shelf is seeded with. */
export interface ShelfSource {
  database: SelectedDatabase;
  open: (uri: string) => Promise<DatabaseConnection>;
  config: Config;
}

/** Runs `run` with the shelf seeded in a database in a process apart from the bench's: the stand-in started for it, or the run's own. */
export function withShelfApart<T>(
  { database, open, config }: ShelfSource,
  run: (shelf: ShelfApart) => Promise<T>,
  standInProcess: { env?: NodeJS.ProcessEnv; nodeOptions?: string[] } = {},
): Promise<T> {
  return withDatabaseApart(
    database,
    open,
    async ({ db, ...shelf }) => {
      await seedShelf(db, config);
      return run(shelf);
    },
    standInProcess,
  );
}

/**
 * The API as `npm start` runs it, in a process of its own on the shelf's database: every answer from the
 * database (the bare server has no response cache) unless `cached`, with `env` added (tokens, a profile's file)
 * and `nodeOptions` before its entry point (the profiler).
 */
export function startApiOnShelf(
  shelf: ShelfApart,
  { cached = false, env = {}, nodeOptions = [] }: { cached?: boolean; env?: NodeJS.ProcessEnv; nodeOptions?: string[] } = {},
): Promise<Child> {
  return startChild(
    "bench/processes/api-process.ts",
    [],
    { ...shelf.env, ...(cached ? {} : { CATALOG_MAX_AGE_SECONDS: "0" }), ...env },
    nodeOptions,
  );
}
