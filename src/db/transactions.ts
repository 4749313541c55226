import { MongoError, type ClientSession, type Db, type TransactionOptions } from "mongodb";
import { CommitOutcomeUnknownError, TransactionTimeLimitError } from "./errors";

/** Reads and writes of one snapshot, acknowledged by a majority: what a transaction commits survives a failover. */
const MAJORITY_SNAPSHOT: TransactionOptions = { readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } };

/**
 * `work` as one transaction, retried on write conflicts as the driver's `withTransaction` does, but not
 * past `timeLimitMs`: the driver would go on for two minutes, long after the request was answered.
 * The driver also retries the commit when its result is unknown, so a transaction commits once or not at all.
 */
export function inTransaction<T>(db: Db, timeLimitMs: number, work: (session: ClientSession) => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + timeLimitMs;
  return db.client.withSession(async (session) => {
    let done: { result: T } | undefined;
    try {
      return await session.withTransaction(async () => {
        done = undefined;
        if (Date.now() > giveUpAt) throw new TransactionTimeLimitError(timeLimitMs);
        const result = await work(session);
        done = { result };
        return result;
      }, MAJORITY_SNAPSHOT);
    } catch (error) {
      // Only the commit can fail with something other than a MongoError once the work is done (see `recommit`).
      if (done === undefined || error instanceof MongoError) throw error;
      await recommit(session, error);
      return done.result;
    }
  });
}

/**
 * The commit again, once, after the driver's own commit failed with an error that is not a MongoError.
 * mongodb 7.9 lets a connection's socket error through unwrapped when the commit's write fails in the
 * kernel (a reset connection the driver still held for live), then calls MongoError methods on it and
 * throws a TypeError instead of retrying the commit as it does after any other network error. Committing
 * again is what it would have done: a commit is idempotent. If that fails as well, whether the transaction
 * committed is unknown, and the caller answers so.
 */
async function recommit(session: ClientSession, driverError: unknown): Promise<void> {
  try {
    await session.commitTransaction();
  } catch (error) {
    throw new CommitOutcomeUnknownError({ cause: error instanceof MongoError ? error : driverError });
  }
}
