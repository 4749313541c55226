import type { Db } from "mongodb";
import { DEFAULT_PURCHASE_BATCH_MAX, type PurchaseSharingSettings } from "../config";
import { ClaimReleases, RELEASE_RETRY_TIMING, type ReleaseRetryTiming } from "./claim-releases";
import type { PurchaseStorage } from "./documents";
import { KnownOutliers } from "./known-outliers";
import { PURCHASE_ID_TIMING, recordKeyedPurchase, type KeyedPurchaseSettings, type PurchaseIdTiming } from "./keyed-purchases";
import { recordPurchase, type PurchaseOutcome, type PurchaseRequest } from "./purchases";
import { SharedWrites } from "./shared-writes";

/** What the metrics hear of purchases. */
export interface PurchaseObservers {
  /** Told the size of each shared write as it starts. */
  onSharedWrite?: (purchases: number) => void;
  /** Told of each purchase once it is stored for good (after its transaction's commit), never of a replay. */
  onRecorded?: (storedIn: PurchaseStorage) => void;
}

export interface PurchaseServiceOptions {
  /** Shared writes are on, at the default size, unless this says otherwise. */
  sharing?: PurchaseSharingSettings;
  observers?: PurchaseObservers;
  /** How purchaseId claims are leased and waited for, and how long a purchase's transaction may retry. */
  timing?: PurchaseIdTiming;
  /** How owed releases are retried. */
  releaseTiming?: ReleaseRetryTiming;
}

/**
 * Where every purchase of one server goes: `record` picks the write for the request at hand (a plain
 * purchase in `purchases.ts`, a keyed one in `keyed-purchases.ts`). It holds what purchases learn and
 * owe beyond one request, for every request of the server: the outliers it has seen, the releases it
 * owes, and the shared writes in flight. One per server; `stop()` when the server stops.
 */
export class PurchaseService {
  /** The outliers this server has seen, whose purchases go straight to their pages. */
  readonly knownOutliers = new KnownOutliers();
  /** The claims whose release (or outcome) failed in an outage, retried until they land. */
  readonly claimReleases: ClaimReleases;
  /** Undefined when sharing is off: every purchase then writes alone. */
  readonly sharedWrites: SharedWrites | undefined;
  readonly timing: PurchaseIdTiming;
  private readonly observers: PurchaseObservers;

  constructor(
    private readonly db: Db,
    {
      sharing = { purchaseBatching: true, purchaseBatchMax: DEFAULT_PURCHASE_BATCH_MAX },
      observers = {},
      timing = PURCHASE_ID_TIMING,
      releaseTiming = RELEASE_RETRY_TIMING,
    }: PurchaseServiceOptions = {},
  ) {
    this.claimReleases = new ClaimReleases(releaseTiming);
    this.observers = observers;
    this.timing = timing;
    this.sharedWrites = sharing.purchaseBatching
      ? new SharedWrites(db, this.knownOutliers, {
          maxPurchases: sharing.purchaseBatchMax,
          onSharedWrite: observers.onSharedWrite,
          transactionMs: timing.transactionMs,
        })
      : undefined;
  }

  /** Records `request`'s purchase; with a `purchaseId`, at most once however often it is retried (see `recordKeyedPurchase`). */
  async record(request: PurchaseRequest, settings: KeyedPurchaseSettings): Promise<PurchaseOutcome> {
    const { purchaseId } = request;
    const outcome =
      purchaseId === undefined
        ? { ...(await recordPurchase(this.db, request.bookId, request.customerId, settings, this)), replayed: false }
        : await recordKeyedPurchase(this.db, { ...request, purchaseId }, settings, this);
    if (!outcome.replayed) this.observers.onRecorded?.(outcome.storedIn);
    return outcome;
  }

  /** Ends the retries of owed releases; call it after the last request and before the database closes. */
  stop(): Promise<void> {
    return this.claimReleases.stop();
  }
}
