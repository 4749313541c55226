import type { ClientSession, Db, TransactionOptions } from "mongodb";
import { TransactionTimeLimitError } from "./errors";

/** Reads and writes of one snapshot, acknowledged by a majority: what a transaction commits survives a failover. */
const MAJORITY_SNAPSHOT: TransactionOptions = { readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } };

/**
 * `work` as one transaction, retried on write conflicts as the driver's `withTransaction` does, but not
 * past `timeLimitMs`: the driver would go on for two minutes, long after the request was answered.
 * The driver also retries the commit when its result is unknown, so a transaction commits once or not at all.
 */
export function inTransaction<T>(db: Db, timeLimitMs: number, work: (session: ClientSession) => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + timeLimitMs;
  return db.client.withSession((session) =>
    session.withTransaction(async () => {
      if (Date.now() > giveUpAt) throw new TransactionTimeLimitError(timeLimitMs);
      return work(session);
    }, MAJORITY_SNAPSHOT),
  );
}
