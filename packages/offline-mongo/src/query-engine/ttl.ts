import { typeRank } from "../values/compare";
import type { Index } from "./indexes";
import { KeyBound } from "./keys";
import { IndexScan } from "./stages";
import type { Collection, Storage } from "./storage";
import { HeldByTransaction } from "../sessions/transactions";

/** How often mongod's TTL monitor runs by default (`ttlMonitorSleepSecs`). */
export const DEFAULT_TTL_MONITOR_INTERVAL_MS = 60_000;

/**
 * One pass of mongod's TTL monitor: in every collection, delete each document whose field under a
 * TTL index holds a Date (in an array: the earliest Date) at least `expireAfterSeconds` in the past.
 * Documents without a Date there never expire.
 */
export function sweepExpiredDocuments(storage: Storage, now: Date): number {
  let deleted = 0;
  for (const database of storage.listDatabases()) {
    for (const collection of database.collections.values()) deleted += sweepCollection(collection, now.getTime());
  }
  return deleted;
}

function sweepCollection(collection: Collection, now: number): number {
  let deleted = 0;
  for (const index of collection.indexes) {
    if (index.spec.expireAfterSeconds === undefined) continue;
    for (const id of expiredIds(index, new Date(now - index.spec.expireAfterSeconds * 1000))) {
      const record = collection.record(id);
      if (record === undefined || !removeUnlessHeld(collection, record)) continue;
      deleted += 1;
    }
  }
  return deleted;
}

/** A document an open transaction has written is left for a later pass, as mongod's TTL deletes skip a write conflict. */
function removeUnlessHeld(collection: Collection, record: Parameters<Collection["remove"]>[0]): boolean {
  try {
    collection.remove(record);
    return true;
  } catch (error) {
    if (error instanceof HeldByTransaction) return false;
    throw error;
  }
}

/**
 * Records holding a Date no later than the cutoff under the TTL index: a scan of the index's dates up
 * to the cutoff (in an array, any such element means the earliest Date is expired).
 */
function expiredIds(index: Index, cutoff: Date): Set<number> {
  const dates = [{ low: new KeyBound(typeRank(cutoff), false), lowInclusive: true, high: cutoff, highInclusive: true }];
  const scan = new IndexScan(index, [dates], true);
  const ids = new Set<number>();
  for (let result = scan.work(); result.state !== "eof"; result = scan.work()) if (result.state === "advanced") ids.add(result.id);
  return ids;
}
