import type { Db } from "mongodb";
import type { OutlierSettings } from "../config";
import type { BulkProgress } from "../maintenance/bulk";
import { DEMO_CATALOG, catalogSize, checkCatalogSpec, loadCatalog, type CatalogSpec } from "../maintenance/demo-catalog";
import { extraSalesCollection, salesCollection } from "../sales/documents";
import { ensureSalesIndexes } from "../sales/indexes";
import { withBookProgress } from "./book-progress";
import { parseFlags, runToolAsMain, ToolFailure, wholeNumberFlag, withDatabase, type ToolDefinition } from "./tool";

const USAGE = `Usage: npm run seed -- [--seed N] [--books N] [--outliers N] [--max-purchases N] [--drop]

Writes a generated catalog into the database MONGODB_URI and MONGODB_DB name: the manual's two
example books plus --books generated ones (default ${DEMO_CATALOG.books}) with a long-tailed sales curve,
--outliers of them (default ${DEMO_CATALOG.outliers}) with up to --max-purchases each (default ${DEMO_CATALOG.maxPurchases}).
The same --seed (default ${DEMO_CATALOG.seed}) always writes the same documents; the defaults write npm start's demo catalog.
Refuses to write into a database whose sales or extra_sales hold anything, unless --drop,
which drops both collections first.`;

const FLAGS = {
  seed: { type: "string" },
  books: { type: "string" },
  outliers: { type: "string" },
  "max-purchases": { type: "string" },
  drop: { type: "boolean", default: false },
} as const;

export const seedTool: ToolDefinition = {
  usage: USAGE,
  async run(args, env, output) {
    const flags = parseFlags(args, FLAGS);
    const spec: CatalogSpec = {
      seed: wholeNumberFlag(flags.seed, "seed", DEMO_CATALOG.seed),
      books: wholeNumberFlag(flags.books, "books", DEMO_CATALOG.books),
      outliers: wholeNumberFlag(flags.outliers, "outliers", DEMO_CATALOG.outliers),
      maxPurchases: wholeNumberFlag(flags["max-purchases"], "max-purchases", DEMO_CATALOG.maxPurchases),
    };
    // Before connecting, so that a bad spec never costs a --drop.
    checkCatalogSpec(spec);
    await withDatabase(env, "npm run seed", async ({ db }, config) => {
      if (flags.drop) await dropCatalog(db);
      else await refuseUnlessEmpty(db, config.mongodbDb);
      const loaded = await loadWithProgressBar(db, spec, config);
      output.out(`Seeded ${config.mongodbDb}: ${loaded.books} books, ${loaded.purchases} purchases (seed ${spec.seed}).`);
    });
  },
};

async function dropCatalog(db: Db): Promise<void> {
  await salesCollection(db).drop();
  await extraSalesCollection(db).drop();
  // Dropping extra_sales dropped its unique index, which recordPurchase depends on.
  await ensureSalesIndexes(db);
}

async function refuseUnlessEmpty(db: Db, dbName: string): Promise<void> {
  const [books, pages] = await Promise.all([
    salesCollection(db).estimatedDocumentCount(),
    extraSalesCollection(db).estimatedDocumentCount(),
  ]);
  if (books + pages === 0) return;
  throw new ToolFailure(
    `Database "${dbName}" already holds ${books} sales and ${pages} extra_sales documents; seeding would mix catalogs. ` +
      "Run again with --drop to replace them, or set MONGODB_DB to another database.",
  );
}

async function loadWithProgressBar(db: Db, spec: CatalogSpec, settings: OutlierSettings): Promise<BulkProgress> {
  const total = catalogSize(spec);
  return withBookProgress("Seeding |{bar}| {value}/{total} books | {purchases} purchases", (bar) => {
    bar.update(0, total, { purchases: 0 });
    return loadCatalog(db, spec, settings, ({ books, purchases }) => bar.update(books, total, { purchases }));
  });
}

if (require.main === module) runToolAsMain(seedTool);
