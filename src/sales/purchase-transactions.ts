import type { Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { isDuplicateKeyError } from "../db/errors";
import { inTransaction } from "../db/transactions";
import { storeOutcome, takeClaim, type ClaimId, type Taking } from "./claims";
import type { BookId } from "./documents";
import type { KnownOutliers } from "./known-outliers";
import { recordPurchase, type PurchaseRequest, type RecordedPurchase } from "./purchases";

/** What a keyed purchase's transaction needs to know. */
export interface TransactionPurchase {
  request: PurchaseRequest;
  id: ClaimId;
  settings: Pick<OutlierSettings, "outlierThreshold">;
  knownOutliers: KnownOutliers;
  /** How long the transaction may keep retrying write conflicts (see `inTransaction`). */
  transactionMs: number;
  /** True once the book's purchases may share a transaction: a retry then leaves this one for the shared ones. */
  mayShare: () => boolean;
}

/**
 * With transactions: the claim, the purchase and its outcome commit together or not at all. The
 * driver's `withTransaction` retries the whole work on a transient error (a write conflict with a
 * racer) and the commit on an unknown commit result. A duplicate key has aborted the transaction, so
 * nothing of it was written: a racer's committed claim, or a racer's new page (the claim vanished with
 * the abort). Either way this answers undefined, and the caller reads the claim to see which.
 * So does a retry that finds the book now shares its transactions: nothing of this one was written,
 * and the caller claims afresh through the shared ones.
 * What the purchase teaches about outliers is kept only once committed: an aborted flag was never set.
 */
export async function recordInTransaction(
  db: Db,
  { request, id, settings, knownOutliers, transactionMs, mayShare }: TransactionPurchase,
  taking: Taking,
): Promise<RecordedPurchase | undefined> {
  let learned: KnownOutlierNote[] = [];
  let attempts = 0;
  const untilCommit = {
    get: (bookId: BookId) => knownOutliers.get(bookId),
    remember: (...note: KnownOutlierNote) => void learned.push(note),
  };
  let purchase: RecordedPurchase | undefined;
  try {
    purchase = await inTransaction(db, transactionMs, async (session) => {
      learned = [];
      if (attempts++ > 0 && mayShare()) return undefined;
      const ownership = await takeClaim(db, taking, session);
      if (ownership === undefined) return undefined;
      const recorded = await recordPurchase(db, request.bookId, request.customerId, settings, { knownOutliers: untilCommit, session });
      await storeOutcome(db, id, ownership.token, recorded.storedIn, session);
      return recorded;
    });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  if (purchase !== undefined) for (const note of learned) knownOutliers.remember(...note);
  return purchase;
}

type KnownOutlierNote = Parameters<KnownOutliers["remember"]>;
