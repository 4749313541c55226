import type { Db } from "mongodb";
import { DEFAULT_PURCHASE_BATCH_MAX, type PurchaseBatchSettings } from "../config";
import { ClaimReleases } from "./claim-releases";
import { FlaggedBooks } from "./flagged-books";
import { OverflowBatches } from "./overflow-batches";
import type { OverflowWriter, PurchaseStorage } from "./purchases";

/** What purchases learn and owe beyond one request, shared by every request of one server. */
export interface ServerPurchases {
  /** The outliers the server has seen, whose purchases go straight to their pages. */
  flaggedBooks: FlaggedBooks;
  /** The purchaseId claims whose release failed in an outage, retried until released. */
  claimReleases: ClaimReleases;
  /** Shares the writes of concurrent overflow purchases of one book; undefined when batching is off. */
  overflowWriter: OverflowWriter | undefined;
  /** Told of each purchase stored, never of a replay. */
  onRecorded: ((storedIn: PurchaseStorage) => void) | undefined;
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
    ? new OverflowBatches(db, flaggedBooks, { maxPurchases: batching.purchaseBatchMax, onBatch })
    : undefined;
  return { flaggedBooks, claimReleases: new ClaimReleases(), overflowWriter, onRecorded };
}
