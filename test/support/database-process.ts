import { startOfflineServer } from "@bookstore/offline-mongo";
import { MongoClient } from "mongodb";
import { selectDatabase } from "../../src/db/select-database";
import { offersTransactions } from "../../src/db/topology";

/**
 * The run's database, chosen as global-setup.ts describes, in a process of its own, and the replica set
 * that tests of transactions need beside it. Prints one JSON line (kind, uri, description, replicaSetUri)
 * once both accept connections, and stops them when standard input closes: at the run's teardown, or when
 * jest dies, so no database outlives the run.
 */
async function main(): Promise<void> {
  const database = await selectDatabase(process.env.MONGODB_URI);
  const replicaSet = await selectReplicaSet(database.uri);
  const { kind, uri, description } = database;
  process.stdout.write(`${JSON.stringify({ kind, uri, description, replicaSetUri: replicaSet.uri })}\n`);
  process.stdin.on("close", () => void Promise.all([database.stop(), replicaSet.stop()]).then(() => process.exit(0)));
  process.stdin.resume();
}

/**
 * MONGODB_REPLICA_SET_URI when set; else the run's database when it is a replica set (or mongos); else
 * the stand-in as a one-member replica set, so that the transactional path runs on every machine.
 */
async function selectReplicaSet(runDatabaseUri: string): Promise<{ uri: string; stop(): Promise<void> }> {
  const given = process.env.MONGODB_REPLICA_SET_URI;
  if (given) return { uri: given, stop: async () => undefined };
  if (offersTransactions(await helloAt(runDatabaseUri))) return { uri: runDatabaseUri, stop: async () => undefined };
  return startOfflineServer({ replicaSet: "rs0", notablescan: process.env.OFFLINE_MONGO_NOTABLESCAN === "1" });
}

async function helloAt(uri: string) {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    return await client.db("admin").command({ hello: 1 });
  } finally {
    await client.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
