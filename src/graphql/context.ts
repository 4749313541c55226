import type { Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { createSalesLoaders, type SalesLoaders } from "../sales/loaders";

/** Built afresh for every request, so DataLoader caches never leak between requests. */
export interface GraphQLContext {
  db: Db;
  loaders: SalesLoaders;
  settings: OutlierSettings;
}

export function createContext(db: Db, settings: OutlierSettings, batchLoads = true): GraphQLContext {
  return { db, loaders: createSalesLoaders(db, { batch: batchLoads }), settings };
}
