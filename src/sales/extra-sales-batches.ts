import { bookIdKey } from "./book-ids";
import type { BookId } from "./documents";
import { WriteCoalescer } from "./write-coalescer";

export interface ExtraSalesBatchSettings {
  /** The most purchases one write carries; the rest wait for the next. */
  maxPurchases: number;
  /** Told the size of each write as it starts, for the metrics. */
  onBatch?: ((purchases: number) => void) | undefined;
}

/**
 * One process's shared writes for extra sales: while a write for an outlier is in flight, the book's
 * next purchases wait and then go together (`write` gets them in arrival order): one append to its
 * open page and one count on the book, instead of one pair each, or one transaction for keyed
 * purchases where transactions are used. A purchase with nothing in flight is written at once, as
 * before. Under load a batch holds what arrived during one write, so it grows with the database's latency.
 */
export class ExtraSalesBatches<Purchase extends { bookId: BookId }, Written> {
  private readonly writes: WriteCoalescer<Purchase, Written>;

  constructor({ maxPurchases, onBatch }: ExtraSalesBatchSettings, write: (purchases: Purchase[]) => Promise<Written>) {
    this.writes = new WriteCoalescer(maxPurchases, (purchases) => {
      onBatch?.(purchases.length);
      return write(purchases);
    });
  }

  record(purchase: Purchase): Promise<Written> {
    return this.writes.submit(bookIdKey(purchase.bookId), purchase);
  }
}
