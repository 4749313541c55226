import type { Db } from "mongodb";
import { bookIdKey } from "./book-ids";
import type { KnownOutliers } from "./known-outliers";
import { recordExtraSales, type OutlierPurchase, type ExtraSalesWrite, type ExtraSalesWriter } from "./purchases";
import { WriteCoalescer } from "./write-coalescer";

export interface ExtraSalesBatchSettings {
  /** The most purchases one write carries; the rest wait for the next. */
  maxPurchases: number;
  /** Told the size of each write as it starts, for the metrics. */
  onBatch?: ((purchases: number) => void) | undefined;
}

/**
 * One process's shared writes for extra sales: while a write for an outlier is in flight,
 * the book's next purchases wait and then go together, in one append to its open page and one count on
 * the book, instead of one pair each. A purchase with nothing in flight is written at once, as before.
 * Under load a batch holds what arrived during one write, so it grows with the database's latency.
 */
export class ExtraSalesBatches implements ExtraSalesWriter {
  private readonly writes: WriteCoalescer<OutlierPurchase, ExtraSalesWrite>;

  constructor(db: Db, knownOutliers: KnownOutliers, { maxPurchases, onBatch }: ExtraSalesBatchSettings) {
    this.writes = new WriteCoalescer(maxPurchases, (purchases) => {
      onBatch?.(purchases.length);
      return recordExtraSales(db, purchases, knownOutliers);
    });
  }

  record(purchase: OutlierPurchase): Promise<ExtraSalesWrite> {
    return this.writes.submit(bookIdKey(purchase.bookId), purchase);
  }
}
