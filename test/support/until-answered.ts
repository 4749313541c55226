import { TransactionTimeLimitError } from "../../src/db/errors";
import { PurchaseInProgressError } from "../../src/sales/errors";

/**
 * Sends a keyed purchase until it is answered, as docs/api/errors.md tells clients to: PURCHASE_IN_PROGRESS, and
 * DATABASE_UNAVAILABLE from a transaction given up at its time limit (a busy machine's racing transactions
 * on one book can meet conflicts that long), both ask for a retry with the same purchaseId.
 */
export async function untilAnswered<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof PurchaseInProgressError || error instanceof TransactionTimeLimitError)) throw error;
    }
  }
}
