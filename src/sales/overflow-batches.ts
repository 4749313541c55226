import type { Db } from "mongodb";
import { bookIdKey } from "./book-ids";
import type { FlaggedBooks } from "./flagged-books";
import { recordOverflowPurchases, type OverflowPurchase, type OverflowWrite, type OverflowWriter } from "./purchases";
import { WriteCoalescer } from "./write-coalescer";

export interface OverflowBatchSettings {
  /** The most purchases one write carries; the rest wait for the next. */
  maxPurchases: number;
  /** Told the size of each write as it starts, for the metrics. */
  onBatch?: ((purchases: number) => void) | undefined;
}

/**
 * One process's shared writes for overflow purchases: while a write for a flagged book is in flight,
 * the book's next purchases wait and then go together, in one append to its open page and one count on
 * the book, instead of one pair each. A purchase with nothing in flight is written at once, as before.
 * Under load a batch holds what arrived during one write, so it grows with the database's latency.
 */
export class OverflowBatches implements OverflowWriter {
  private readonly writes: WriteCoalescer<OverflowPurchase, OverflowWrite>;

  constructor(db: Db, flaggedBooks: FlaggedBooks, { maxPurchases, onBatch }: OverflowBatchSettings) {
    this.writes = new WriteCoalescer(maxPurchases, (purchases) => {
      onBatch?.(purchases.length);
      return recordOverflowPurchases(db, purchases, flaggedBooks);
    });
  }

  record(purchase: OverflowPurchase): Promise<OverflowWrite> {
    return this.writes.submit(bookIdKey(purchase.bookId), purchase);
  }
}
