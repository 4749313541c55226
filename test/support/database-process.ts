import { selectDatabase, selectReplicaSet } from "../../src/db/select-database";

/**
 * The run's database, chosen as global-setup.ts describes, in a process of its own, and the replica set
 * that tests of transactions need beside it (see `selectReplicaSet`). Prints one JSON line (kind, uri,
 * description, replicaSetUri) once both accept connections, and stops them when standard input closes:
 * at the run's teardown, or when jest dies, so no database outlives the run.
 */
async function main(): Promise<void> {
  const database = await selectDatabase(process.env.MONGODB_URI);
  const replicaSet = await selectReplicaSet(database, process.env.MONGODB_REPLICA_SET_URI);
  const { kind, uri, description } = database;
  process.stdout.write(`${JSON.stringify({ kind, uri, description, replicaSetUri: replicaSet.uri })}\n`);
  process.stdin.on("close", () => void Promise.all([database.stop(), replicaSet.stop()]).then(() => process.exit(0)));
  process.stdin.resume();
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
