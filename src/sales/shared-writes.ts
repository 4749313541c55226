import type { Db } from "mongodb";
import { isDuplicateKeyError } from "../db/errors";
import { inTransaction } from "../db/transactions";
import { bookIdKey } from "./book-ids";
import { claimedPurchaseIds } from "./claims";
import { claimsCollection, type BookId, type BookWithoutBuyers, type ClaimDocument } from "./documents";
import { recordExtraSales, recordExtraSalesInTransaction, type ExtraSalesWrite, type OutlierPurchase } from "./extra-sales";
import type { KnownOutliers } from "./known-outliers";

export interface SharedWriteSettings {
  /** The most purchases one write carries; the rest wait for the next. */
  maxPurchases: number;
  /** Told the size of each write as it starts, for the metrics. */
  onSharedWrite?: ((purchases: number) => void) | undefined;
  /** How long a shared transaction may keep retrying write conflicts (see `inTransaction`). */
  transactionMs: number;
}

/** A keyed purchase of a known outlier, with the claim it would insert, waiting to share a transaction with others of the book. */
export interface KeyedExtraSale extends OutlierPurchase {
  claim: ClaimDocument;
}

/** What one shared transaction stored: the book after it (none when it stored nothing), how many purchases, and whose claims (by owner token). */
export interface SharedTransactionWrite {
  book: BookWithoutBuyers | undefined;
  purchases: number;
  recorded: ReadonlySet<string>;
}

/**
 * One server's shared writes for extra sales: while a write for an outlier is in flight, the book's
 * next purchases wait and then go together, in arrival order: one append to its open page and one
 * count on the book instead of one pair each, or, for keyed purchases where transactions are used,
 * one transaction: a group commit. A purchase with nothing in flight is written at once. Under load a shared write holds
 * what arrived during one write, so it grows with the database's latency.
 */
export class SharedWrites {
  private readonly extraSales: BookQueue<OutlierPurchase, ExtraSalesWrite>;
  private readonly keyedExtraSales: BookQueue<KeyedExtraSale, SharedTransactionWrite>;

  constructor(db: Db, knownOutliers: KnownOutliers, { maxPurchases, onSharedWrite, transactionMs }: SharedWriteSettings) {
    this.extraSales = new BookQueue(maxPurchases, (purchases) => {
      onSharedWrite?.(purchases.length);
      return recordExtraSales(db, purchases, knownOutliers);
    });
    this.keyedExtraSales = new BookQueue(maxPurchases, (sales) => {
      onSharedWrite?.(sales.length);
      return recordSharedTransaction(db, sales, knownOutliers, transactionMs);
    });
  }

  /** Steps 3 and 4 of a purchase (see `recordPurchase`), shared with the book's purchases that arrive meanwhile. */
  extraSale(purchase: OutlierPurchase): Promise<ExtraSalesWrite> {
    return this.extraSales.submit(purchase);
  }

  /** A keyed purchase of a known outlier, in one transaction with the book's keyed purchases that arrive meanwhile. */
  keyedExtraSale(sale: KeyedExtraSale): Promise<SharedTransactionWrite> {
    return this.keyedExtraSales.submit(sale);
  }
}

/**
 * Keyed purchases of one outlier in one transaction: their claims, already holding their outcome (the
 * transaction makes claim and purchase one), their appends in arrival order and one count. A duplicate
 * key aborts it all: a claim committed meanwhile by another request with the same purchaseId (that
 * purchase then answers from it, as any retry does), or a page a racer opened; the others are tried
 * again in a fresh transaction. A purchaseId twice in one shared write goes in once; its second request finds the claim.
 * Any other failure is every member's, as it would be a lone purchase's, and leaves nothing behind.
 */
async function recordSharedTransaction(
  db: Db,
  sales: readonly KeyedExtraSale[],
  knownOutliers: KnownOutliers,
  transactionMs: number,
): Promise<SharedTransactionWrite> {
  let pending = [...new Map(sales.map((sale) => [sale.claim._id.purchase_id, sale])).values()];
  while (pending.length > 0) {
    const outlier = knownOutliers.get(pending[0]!.bookId) ?? pending[0]!.outlier;
    const shared = pending.map((sale) => ({ ...sale, outlier }));
    try {
      const written = await inTransaction(db, transactionMs, async (session) => {
        const claims = shared.map(({ claim }) => ({ ...claim, stored_in: "EXTRA_SALES" as const }));
        await claimsCollection(db).insertMany(claims, { session });
        return recordExtraSalesInTransaction(db, shared, session);
      });
      knownOutliers.remember(shared[0]!.bookId, outlier, written.page);
      return { book: written.book, purchases: written.purchases, recorded: new Set(shared.map(({ claim }) => claim.owner)) };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const claimed = await claimedPurchaseIds(
        db,
        shared.map(({ claim }) => claim._id),
      );
      pending = pending.filter(({ claim }) => !claimed.has(claim._id.purchase_id));
    }
  }
  return { book: undefined, purchases: 0, recorded: new Set() };
}

/** One caller's purchase, waiting for the write that carries it. */
interface Waiting<Purchase, Written> {
  purchase: Purchase;
  resolve(written: Written): void;
  reject(error: unknown): void;
}

/**
 * Group commit per book: while a write for a book is in flight, its purchases wait, and when it ends
 * they go together (at most `maxPurchases`, in arrival order) in the next write. A purchase that finds
 * no write in flight is written at once, alone: no timer, so a lone purchase waits for nothing but its
 * own write. Every purchase of a shared write settles with its result or error.
 *
 * Written here rather than taken from a library: DataLoader and its kin batch by tick or by timer,
 * which would either miss the purchases that queue during a round trip or add a wait to the lone one.
 */
export class BookQueue<Purchase extends { bookId: BookId }, Written> {
  // A book is present while a write for it is in flight; its array holds the purchases waiting for the next.
  private readonly waiting = new Map<string, Waiting<Purchase, Written>[]>();

  constructor(
    private readonly maxPurchases: number,
    private readonly write: (purchases: Purchase[]) => Promise<Written>,
  ) {}

  /** Resolves with the result of the write that carried `purchase`, or rejects with its error. */
  submit(purchase: Purchase): Promise<Written> {
    const book = bookIdKey(purchase.bookId);
    return new Promise<Written>((resolve, reject) => {
      const entry = { purchase, resolve, reject };
      const queue = this.waiting.get(book);
      if (queue) queue.push(entry);
      else {
        this.waiting.set(book, []);
        void this.writeTogether(book, [entry]);
      }
    });
  }

  private async writeTogether(book: string, together: Waiting<Purchase, Written>[]): Promise<void> {
    try {
      const written = await this.write(together.map((entry) => entry.purchase));
      for (const entry of together) entry.resolve(written);
    } catch (error) {
      for (const entry of together) entry.reject(error);
    }
    const queue = this.waiting.get(book) ?? [];
    if (queue.length === 0) this.waiting.delete(book);
    else void this.writeTogether(book, queue.splice(0, this.maxPurchases));
  }
}
