import type { Db } from "mongodb";
import type { DatabaseConnection } from "../../src/db/connection";
import type { SelectedDatabase } from "../../src/db/select-database";
import { startChild, type Child } from "./children";

/** A database in a process apart from the bench's: where it runs, the environment that points a server process at it, and the bench's own handle on it. */
export interface DatabaseApart {
  description: string;
  env: NodeJS.ProcessEnv;
  /** The database's process when the bench started it (the stand-in), so that its CPU can be read and it can be signalled; else null. */
  standIn: Child | null;
  /** The bench's connection to it, to seed what the servers will read. */
  db: Db;
}

/** Runs `run` on a database in a process apart from the bench's: the stand-in started for it, or the run's own. */
export async function withDatabaseApart<T>(
  database: SelectedDatabase,
  open: (uri: string) => Promise<DatabaseConnection>,
  run: (apart: DatabaseApart) => Promise<T>,
  standInProcess: { env?: NodeJS.ProcessEnv; nodeOptions?: string[] } = {},
): Promise<T> {
  // An external mongod or mongodb-memory-server's already runs apart; only the stand-in runs inside the bench.
  const standIn = database.kind === "offline-server" ? await startStandInApart(standInProcess) : null;
  const uri = standIn ? standInUri(standIn) : database.uri;
  const connection = await open(uri);
  try {
    return await run({
      description: standIn ? `the offline stand-in in a process of its own (${uri})` : database.description,
      env: { MONGODB_URI: uri, MONGODB_DB: connection.db.databaseName },
      standIn,
      db: connection.db,
    });
  } finally {
    await connection.close();
    await standIn?.stop();
  }
}

/** The stand-in started in a process of its own (its own heap limit among `nodeOptions`), serving on a free port. */
export function startStandInApart({ env = {}, nodeOptions }: { env?: NodeJS.ProcessEnv; nodeOptions?: string[] } = {}): Promise<Child> {
  return startChild(require.resolve("@bookstore/offline-mongo/cli"), ["--port", "0"], env, nodeOptions);
}

/** The address the stand-in's first line gives. */
export function standInUri(standIn: Child): string {
  return /mongodb:\/\/\S+/.exec(standIn.firstLine)?.[0] ?? "";
}
