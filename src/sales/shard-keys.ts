import type { MongoClient } from "mongodb";
import { EXTRA_SALES, PURCHASE_REQUESTS, SALES } from "./documents";

/** A shard key pattern as `shardCollection` takes it. */
export type ShardKeyPattern = Readonly<Record<string, 1 | "hashed">>;

/**
 * The shard key of every collection the API writes, declared once (docs/operations/sharding.md says why).
 * All three hash the book's id, so that a book, its extra_sales pages and its purchaseId claims share one
 * hash value: on an empty collection `shardCollection` splits the hash space into the same ranges on every
 * collection, so a purchase's transaction touches one shard. Hashed, because book ids may grow monotonically
 * (ObjectIds, counters), which on a ranged key would send every new book to the range of the highest ids, on one shard.
 * `extra_sales`' unique `(book_id, page)` index is prefixed by its key's field, as mongos requires; claims
 * stay unique because their `_id` holds the book, so one `_id` always lands on one shard.
 * `reconcile_journal` (maintenance only) and the legacy collections `npm run migrate` reads stay unsharded,
 * on the database's primary shard.
 */
export const SHARD_KEYS: Readonly<Record<string, ShardKeyPattern>> = {
  [SALES]: { _id: "hashed" },
  [EXTRA_SALES]: { book_id: "hashed" },
  [PURCHASE_REQUESTS]: { "_id.book_id": "hashed" },
};

/** What `applyShardKeys` did to one collection: sharded it now, or found it already sharded on its key. */
export interface ShardOutcome {
  namespace: string;
  outcome: "sharded" | "already sharded";
}

/**
 * Shards each collection on its declared key, through a mongos; running it again changes nothing. A collection
 * already sharded on its key is told apart by its entry in `config.collections`, which mongos answers from its
 * config servers: `shardCollection` itself replies alike whether it sharded the collection or found it so.
 */
export async function applyShardKeys(client: MongoClient, database: string): Promise<ShardOutcome[]> {
  const admin = client.db("admin");
  const outcomes: ShardOutcome[] = [];
  for (const [collection, key] of Object.entries(SHARD_KEYS)) {
    const namespace = `${database}.${collection}`;
    if (await isShardedOn(client, namespace, key)) {
      outcomes.push({ namespace, outcome: "already sharded" });
      continue;
    }
    // A collection sharded on another key reaches shardCollection too, so that mongos's own refusal (23) names both keys.
    await admin.command({ shardCollection: namespace, key });
    outcomes.push({ namespace, outcome: "sharded" });
  }
  return outcomes;
}

/** Whether the cluster's catalog holds `namespace` sharded on exactly `key` (field order included, as mongos compares). */
async function isShardedOn(client: MongoClient, namespace: string, key: ShardKeyPattern): Promise<boolean> {
  const entry = await client
    .db("config")
    .collection<{ _id: string; key?: unknown; dropped?: boolean }>("collections")
    .findOne({ _id: namespace, dropped: { $ne: true } });
  return entry !== null && JSON.stringify(entry.key) === JSON.stringify(key);
}
