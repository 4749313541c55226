import { MongoClient, type Document, type UpdateFilter } from "mongodb";
import { startOfflineServer } from "../../src/db/offline-server";

export interface TestServer {
  readonly uri: string;
  stop(): Promise<void>;
}

/** The database under test: `MONGODB_URI` when set (e.g. a real mongod), else a fresh offline server. */
export async function startTestServer(): Promise<TestServer> {
  const fromEnvironment = process.env["MONGODB_URI"];
  if (fromEnvironment) return { uri: fromEnvironment, stop: async () => undefined };
  return startOfflineServer();
}

/** A database name unique to one test file (and run), so files never see each other's data. */
export function uniqueDbName(file: string): string {
  return `offline_test_${file}_${process.pid}_${Date.now().toString(36)}`;
}

export function newClient(uri: string): MongoClient {
  return new MongoClient(uri, { serverSelectionTimeoutMS: 5000, directConnection: true });
}


/**
 * The driver's update typings reject some valid updates on schema-less documents (e.g. `$push` to
 * a field whose type it cannot infer); tests that exercise such updates pass them through here.
 */
export function untypedUpdate(update: Document): UpdateFilter<Document> {
  return update;
}
