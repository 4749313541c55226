import { selectDatabase, selectReplicaSet, type StandInSharding } from "../../src/db/select-database";
import { SHARD_KEYS } from "../../src/sales/shard-keys";

/**
 * The run's database, chosen as global-setup.ts describes, in a process of its own, and the replica set
 * that tests of transactions need beside it (see `selectReplicaSet`). Prints one JSON line (kind, uri,
 * description, replicaSetUri, replicaSetDescription) once both accept connections, and stops them when standard input closes:
 * at the run's teardown, or when jest dies, so no database outlives the run.
 */
async function main(): Promise<void> {
  const sharding = standInSharding(process.env.OFFLINE_MONGO_SHARDS);
  const database = await selectDatabase(process.env.MONGODB_URI, { sharding });
  if (sharding && database.kind !== "offline-server") {
    await database.stop();
    throw new Error(
      `OFFLINE_MONGO_SHARDS simulates shards in the offline stand-in, but the run would use ${database.description}: ` +
        "unset MONGODB_URI (and MONGOMS_SYSTEM_BINARY) to run on the stand-in, or unset OFFLINE_MONGO_SHARDS.",
    );
  }
  const replicaSet = await selectReplicaSet(database, process.env.MONGODB_REPLICA_SET_URI, sharding);
  const { kind, uri, description } = database;
  process.stdout.write(
    `${JSON.stringify({ kind, uri, description, replicaSetUri: replicaSet.uri, replicaSetDescription: replicaSet.description })}\n`,
  );
  process.stdin.on("close", () => void Promise.all([database.stop(), replicaSet.stop()]).then(() => process.exit(0)));
  process.stdin.resume();
}

/**
 * OFFLINE_MONGO_SHARDS=N runs the stand-ins as a mongos over N simulated shards, every database's collections
 * sharded on the product's keys as `npm run shard` would: each command mongos would refuse fails its test
 * (docs/operations/sharding.md).
 */
function standInSharding(shards: string | undefined): StandInSharding | undefined {
  if (!shards) return undefined;
  if (!/^[1-9]\d*$/.test(shards)) throw new Error(`OFFLINE_MONGO_SHARDS must be a whole number of shards, at least 1, got '${shards}'`);
  return { shards: Number(shards), shardKeys: { ...SHARD_KEYS } };
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
