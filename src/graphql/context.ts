import type { Db } from "mongodb";
import type { Principal } from "../auth/principal";
import type { ApiSettings } from "../config";
import { createSalesLoaders, type SalesLoaders } from "../sales/loaders";
import { createPoolShare, requestPoolShare, type PoolShare } from "../sales/pool-share";
import { PurchaseService, type PurchaseServiceOptions } from "../sales/purchase-service";
import type { PurchaseOutcome, PurchaseRequest } from "../sales/purchases";
import { RecentSalesStats } from "../sales/stats";
import { LiveSales, type LiveSalesOptions } from "../sales/live/live-sales";

/** Built afresh for every request, so DataLoader caches never leak between requests. */
export interface GraphQLContext {
  db: Db;
  loaders: SalesLoaders;
  settings: ApiSettings;
  /** Who sent the request; `accessPlugin` checks it against every field an operation selects. */
  principal: Principal;
  /** Records this request's purchases through the server's purchase service. */
  purchases: RequestPurchases;
  /** The server's `salesStats` figures, a few seconds old at most. */
  salesStats: RecentSalesStats;
  /** The connections of the pool this request may hold at once; every read a resolver sends goes through it. */
  share: PoolShare;
  /** The server's live sales, which subscriptions listen to. */
  live: LiveSales;
}

/** One request's way to the server's purchase service, with the request's settings. */
export interface RequestPurchases {
  record(request: PurchaseRequest): Promise<PurchaseOutcome>;
  /** How many purchases each recorded purchase's write carried, in order, for the request's log line. */
  readonly writeSizes: readonly number[];
}

/** What every request of one server shares, built once when the server starts: the only state a server keeps. */
export interface ServerState {
  purchases: PurchaseService;
  salesStats: RecentSalesStats;
  live: LiveSales;
}

export function createServerState(db: Db, purchases: PurchaseServiceOptions = {}, live: LiveSalesOptions = {}): ServerState {
  return { purchases: new PurchaseService(db, purchases), salesStats: new RecentSalesStats(db), live: new LiveSales(db, live) };
}

export function createContext(db: Db, settings: ApiSettings, principal: Principal, server: ServerState, batchLoads = true): GraphQLContext {
  const share = createPoolShare(requestPoolShare(db));
  const loaders = createSalesLoaders(db, { batch: batchLoads, share });
  const purchases = requestPurchases(server.purchases, settings);
  return { db, loaders, settings, principal, purchases, salesStats: server.salesStats, share, live: server.live };
}

function requestPurchases(service: PurchaseService, settings: ApiSettings): RequestPurchases {
  const writeSizes: number[] = [];
  return {
    writeSizes,
    async record(request) {
      const outcome = await service.record(request, settings);
      writeSizes.push(outcome.purchasesInWrite);
      return outcome;
    },
  };
}
