import type { Db } from "mongodb";
import { DEFAULT_PURCHASE_BATCH_MAX, type PurchaseBatchSettings } from "../config";
import { ClaimReleases } from "./claim-releases";
import { KnownOutliers } from "./known-outliers";
import { ExtraSalesBatches } from "./extra-sales-batches";
import {
  PURCHASE_ID_TIMING,
  recordKeyedExtraSales,
  type KeyedExtraSale,
  type KeyedExtraSalesWriter,
  type PurchaseIdTiming,
} from "./purchase-requests";
import { recordExtraSales, type ExtraSalesWriter, type OutlierPurchase, type PurchaseStorage } from "./purchases";

/** What purchases learn and owe beyond one request, shared by every request of one server. */
export interface ServerPurchases {
  /** The outliers the server has seen, whose purchases go straight to their pages. */
  knownOutliers: KnownOutliers;
  /** The purchaseId claims whose release failed in an outage, retried until released. */
  claimReleases: ClaimReleases;
  /** Shares the writes of concurrent extra sales of one book; undefined when batching is off. */
  extraSalesWriter: ExtraSalesWriter | undefined;
  /** Where transactions are used, shares one transaction among concurrent keyed extra sales of one book; undefined when batching is off. */
  keyedExtraSalesWriter: KeyedExtraSalesWriter | undefined;
  /** Told of each purchase stored, never of a replay. */
  onRecorded: ((storedIn: PurchaseStorage) => void) | undefined;
  /** How purchaseId claims are leased and waited for, and how long a purchase's transaction may retry. */
  timing: PurchaseIdTiming;
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
  timing: PurchaseIdTiming = PURCHASE_ID_TIMING,
): ServerPurchases {
  const knownOutliers = new KnownOutliers();
  const settings = { maxPurchases: batching.purchaseBatchMax, onBatch };
  const shared = batching.purchaseBatching;
  return {
    knownOutliers,
    claimReleases: new ClaimReleases(),
    extraSalesWriter: shared
      ? new ExtraSalesBatches(settings, (purchases: OutlierPurchase[]) => recordExtraSales(db, purchases, knownOutliers))
      : undefined,
    keyedExtraSalesWriter: shared
      ? new ExtraSalesBatches(settings, (sales: KeyedExtraSale[]) => recordKeyedExtraSales(db, sales, knownOutliers, timing.transactionMs))
      : undefined,
    onRecorded,
    timing,
  };
}
