import type { Db } from "mongodb";
import type { Principal } from "../auth/principal";
import { DEFAULT_PURCHASE_BATCH_MAX, type ApiSettings, type PurchaseBatchSettings } from "../config";
import { ClaimReleases } from "../sales/claim-releases";
import { FlaggedBooks } from "../sales/flagged-books";
import { createSalesLoaders, type SalesLoaders } from "../sales/loaders";
import { OverflowBatches } from "../sales/overflow-batches";
import type { OverflowWriter, PurchaseStorage } from "../sales/purchases";

/** Built afresh for every request, so DataLoader caches never leak between requests. */
export interface GraphQLContext {
  db: Db;
  loaders: SalesLoaders;
  settings: ApiSettings;
  /** Who sent the request; `accessPlugin` checks it against every field an operation selects. */
  principal: Principal;
  /** Shared by every request of one server. */
  purchases: ServerPurchases;
}

/** What purchases learn and owe beyond one request, shared by every request of one server. */
export interface ServerPurchases {
  /** The outliers the server has seen, whose purchases go straight to their pages. */
  flaggedBooks: FlaggedBooks;
  /** The purchaseId claims whose release failed in an outage, retried until released. */
  claimReleases: ClaimReleases;
  /** Shares the writes of concurrent overflow purchases of one book; absent when batching is off. */
  overflowWriter?: OverflowWriter;
  /** Told of each purchase stored, never of a replay. */
  onRecorded?: (storedIn: PurchaseStorage) => void;
}

/** What the metrics hear of purchases. */
export interface PurchaseObservers {
  onBatch?: (purchases: number) => void;
  onRecorded?: (storedIn: PurchaseStorage) => void;
}

/** One server's purchase state; batching is on, at the default size, unless `batching` says otherwise. */
export function createServerPurchases(
  db: Db,
  batching: PurchaseBatchSettings = { purchaseBatching: true, purchaseBatchMax: DEFAULT_PURCHASE_BATCH_MAX },
  { onBatch, onRecorded }: PurchaseObservers = {},
): ServerPurchases {
  const flaggedBooks = new FlaggedBooks();
  const overflowWriter = batching.purchaseBatching
    ? new OverflowBatches(db, flaggedBooks, { maxPurchases: batching.purchaseBatchMax, ...(onBatch ? { onBatch } : {}) })
    : undefined;
  return {
    flaggedBooks,
    claimReleases: new ClaimReleases(),
    ...(overflowWriter ? { overflowWriter } : {}),
    ...(onRecorded ? { onRecorded } : {}),
  };
}

export function createContext(
  db: Db,
  settings: ApiSettings,
  principal: Principal,
  purchases: ServerPurchases,
  batchLoads = true,
): GraphQLContext {
  return { db, loaders: createSalesLoaders(db, { batch: batchLoads }), settings, principal, purchases };
}
