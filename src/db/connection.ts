import { MongoClient, type Db, type MongoClientOptions } from "mongodb";
import { ensureIndexes } from "./indexes";

export interface DatabaseConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/** Connects, checks the server answers, and makes sure the indexes exist before anything is served. */
export async function connectToDatabase(
  uri: string,
  dbName: string,
  options: MongoClientOptions = {},
): Promise<DatabaseConnection> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, ...options });
  try {
    await client.connect();
    const db = client.db(dbName);
    await ensureIndexes(db);
    return { client, db, close: () => client.close() };
  } catch (error) {
    await client.close();
    throw new Error(`Cannot use MongoDB at ${redact(uri)} (${(error as Error).message}). Check that it is running and that MONGODB_URI is right.`, { cause: error });
  }
}

/** Keeps passwords out of logs and error messages. */
export function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, "//***@");
}

/** True when the server answers a ping: what readiness means for this service. */
export async function isDatabaseReachable(db: Db): Promise<boolean> {
  try {
    await db.command({ ping: 1 });
    return true;
  } catch {
    return false;
  }
}
