import { execFile } from "node:child_process";
import path from "node:path";
import type { Db, Document } from "mongodb";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import { EXTRA_SALES, SALES, type BookId } from "../../src/sales/documents";
import { LEGACY_SALES_EXTRAS } from "../../src/maintenance/legacy-extra-sales";
import { customers } from "../support/factories";

/** Small limits, so that a handful of purchases crosses the threshold and fills several pages. */
export const SETTINGS = { outlierThreshold: 5, extraSalesPageSize: 4 };

/** A book as written before the pattern: only the manual's fields, plus whatever `fields` adds. */
export function legacyBook(id: BookId, purchases: string[], fields: Document = {}): Document {
  return { _id: id, title: `Legacy ${String(id)}`, author: "An Author", customers_purchased: purchases, ...fields };
}

/** The manual's extra-sales document: every extra customer in one array, no page, no count. */
export function legacyExtraSales(bookId: BookId, purchases: string[], field = "customers_purchased_extra"): Document {
  return { book_id: bookId, [field]: purchases };
}

export interface LegacyFixture {
  books: Document[];
  extraSales?: Document[];
  salesExtras?: Document[];
}

export async function insertLegacy(db: Db, { books, extraSales = [], salesExtras = [] }: LegacyFixture): Promise<void> {
  if (books.length > 0) await db.collection(SALES).insertMany(books);
  if (extraSales.length > 0) await db.collection(EXTRA_SALES).insertMany(extraSales);
  if (salesExtras.length > 0) await db.collection(LEGACY_SALES_EXTRAS).insertMany(salesExtras);
}

/** One book of every legacy shape the seed documents show, with each book's purchases in their original order. */
export function legacyCatalog(): { fixture: LegacyFixture; purchases: Map<BookId, string[]> } {
  const purchases = new Map<BookId, string[]>([
    [1, customers(11, 0, "unbounded-")],
    [2, customers(12, 0, "manual-")],
    [3, customers(9, 0, "sales-extras-")],
    [4, customers(13, 0, "seed004-")],
    [5, customers(2, 0, "small-")],
    [6, []],
  ]);
  const of = (id: BookId) => purchases.get(id)!;
  return {
    purchases,
    fixture: {
      books: [
        legacyBook(1, of(1)),
        legacyBook(2, of(2).slice(0, 5), { has_extras: true }),
        // The manual's update rule pushes before flagging, so its 51st purchase stays embedded.
        legacyBook(3, of(3).slice(0, 6), { has_extras: true }),
        legacyBook(4, of(4).slice(0, 8), { has_extras: "true" }),
        legacyBook(5, of(5)),
        legacyBook(6, of(6), { has_extras: "false" }),
      ],
      extraSales: [legacyExtraSales(2, of(2).slice(5)), legacyExtraSales(4, of(4).slice(8), "customers_purchased")],
      salesExtras: [legacyExtraSales(3, of(3).slice(6))],
    },
  };
}

/** A book already in the bounded form, as the API's bulk path writes it. */
export async function insertBoundedBook(db: Db, id: BookId, purchases: string[]): Promise<void> {
  await insertBooksWithPurchases(
    db,
    [{ book: { id, title: `Bounded ${String(id)}`, author: "An Author" }, customers: purchases }],
    SETTINGS,
  );
}

/** Everything the three collections hold, in a stable order, for before/after comparisons. */
export async function snapshot(db: Db, { withPageIds = true } = {}): Promise<Record<string, Document[]>> {
  const read = (name: string, sort: Document, projection: Document = {}) =>
    db.collection(name).find({}, { projection }).sort(sort).toArray();
  return {
    sales: await read(SALES, { _id: 1 }),
    extraSales: await read(EXTRA_SALES, { book_id: 1, page: 1 }, withPageIds ? {} : { _id: 0 }),
    salesExtras: await read(LEGACY_SALES_EXTRAS, { book_id: 1 }),
  };
}

export async function emptyCollections(db: Db): Promise<void> {
  for (const name of [SALES, EXTRA_SALES, LEGACY_SALES_EXTRAS]) await db.collection(name).deleteMany({});
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command-line tool as `npm run` would, in a child process, against the given database (or none). */
export function runCommand(script: string, args: string[], database: { uri?: string; name: string }): Promise<CommandResult> {
  const { MONGODB_URI: _, ...inherited } = process.env;
  const env = {
    ...inherited,
    ...(database.uri ? { MONGODB_URI: database.uri } : {}),
    MONGODB_DB: database.name,
    OUTLIER_THRESHOLD: String(SETTINGS.outlierThreshold),
    EXTRA_SALES_PAGE_SIZE: String(SETTINGS.extraSalesPageSize),
  };
  return new Promise((resolve) => {
    execFile(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, script), ...args], { env, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

const ROOT = path.resolve(__dirname, "../..");
