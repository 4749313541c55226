import { valuesAtPath } from "./paths";
import type { Collection, Storage } from "./storage";

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
  for (const { spec, fields } of collection.indexes) {
    const [field] = fields;
    if (spec.expireAfterSeconds === undefined || field === undefined) continue;
    const cutoff = now - spec.expireAfterSeconds * 1000;
    for (const record of collection.all()) {
      const earliest = earliestDate(valuesAtPath(record.doc, field));
      if (earliest !== undefined && earliest <= cutoff) {
        collection.remove(record);
        deleted += 1;
      }
    }
  }
  return deleted;
}

function earliestDate(values: readonly unknown[]): number | undefined {
  const times = values.filter((value): value is Date => value instanceof Date).map((date) => date.getTime());
  return times.length === 0 ? undefined : Math.min(...times);
}
