import type { Db } from "mongodb";
import type { Principal } from "../auth/principal";
import type { ApiSettings } from "../config";
import { createSalesLoaders, type SalesLoaders } from "../sales/loaders";
import { createPoolShare, requestPoolShare, type PoolShare } from "../sales/pool-share";
import type { ServerPurchases } from "../sales/server-purchases";

/** Built afresh for every request, so DataLoader caches never leak between requests. */
export interface GraphQLContext {
  db: Db;
  loaders: SalesLoaders;
  settings: ApiSettings;
  /** Who sent the request; `accessPlugin` checks it against every field an operation selects. */
  principal: Principal;
  /** Shared by every request of one server. */
  purchases: ServerPurchases;
  /** The connections of the pool this request may hold at once; every read a resolver sends goes through it. */
  share: PoolShare;
}

export function createContext(
  db: Db,
  settings: ApiSettings,
  principal: Principal,
  purchases: ServerPurchases,
  batchLoads = true,
): GraphQLContext {
  const share = createPoolShare(requestPoolShare(db));
  return { db, loaders: createSalesLoaders(db, { batch: batchLoads, share }), settings, principal, purchases, share };
}
