import type { OfflineServerLogger, RunningOfflineServer } from "@bookstore/offline-mongo";
import type { MongoMemoryReplSet, MongoMemoryServer } from "mongodb-memory-server";
import { StartupError } from "../errors";
import { connectToDatabase, redact } from "./connection";
import { helloOf, offersTransactions } from "./topology";

export type DatabaseKind = "external" | "mongodb-memory-server" | "offline-server";

/** The stand-in's targeting mode, for a test run that checks sharding's rules (docs/operations/sharding.md): its shard count and the keys it shards on. */
export interface StandInSharding {
  shards: number;
  shardKeys: Record<string, Record<string, 1 | "hashed">>;
}

export interface SelectedDatabase {
  kind: DatabaseKind;
  uri: string;
  /** One line for logs: which database this is and why it was chosen. */
  description: string;
  /** Stops the database if this process started it; leaves an external one alone. */
  stop(): Promise<void>;
}

/**
 * Chooses the database for a test run or for `npm start` without configuration, in order:
 * the one MONGODB_URI names; a real mongod from mongodb-memory-server (already downloaded, or
 * MONGOMS_SYSTEM_BINARY; downloaded only when MONGOMS_RUNTIME_DOWNLOAD=true, since package.json turns
 * its downloads off); else the offline stand-in server. Both throwaway databases are development
 * dependencies, loaded only when MONGODB_URI is unset. With `replicaSet`, a throwaway database is a
 * one-member replica set (`npm start`'s, so that subscriptions, which need change streams, work).
 */
export async function selectDatabase(
  mongodbUri: string | undefined,
  { replicaSet = false, sharding, logger }: { replicaSet?: boolean; sharding?: StandInSharding; logger?: OfflineServerLogger } = {},
): Promise<SelectedDatabase> {
  if (mongodbUri) {
    return { kind: "external", uri: mongodbUri, description: `MongoDB at ${redact(mongodbUri)} (from MONGODB_URI)`, stop: async () => {} };
  }
  const shape = replicaSet ? " as a one-member replica set" : "";
  const memoryServer = await startMemoryServer(replicaSet);
  if (memoryServer.server) {
    const server = memoryServer.server;
    const version = "opts" in server ? server.opts.binary?.version : server.binaryOpts.version;
    return {
      kind: "mongodb-memory-server",
      uri: server.getUri(),
      description: `a real mongod ${version ?? ""} from mongodb-memory-server${shape} at ${server.getUri()}`.replace("  ", " "),
      stop: async () => void (await server.stop()),
    };
  }
  const offline = await startStandIn(memoryServer.reason, { ...(replicaSet ? { replicaSet: "rs0" } : {}), ...sharding, logger });
  return {
    kind: "offline-server",
    uri: offline.uri,
    description:
      `the offline MongoDB stand-in${shape} at ${offline.uri}, because no mongod could be had (${memoryServer.reason}; ` +
      "MONGOMS_RUNTIME_DOWNLOAD=true lets mongodb-memory-server download one). Set MONGODB_URI to use a real MongoDB.",
    stop: () => offline.stop(),
  };
}

/**
 * A replica set beside the run's database, for what only a replica set offers (transactions): the
 * tests of keyed purchases and the benchmark's keyed purchases racing on one book. `replicaSetUri` (MONGODB_REPLICA_SET_URI)
 * when set; else the run's database when it is a replica set or mongos; else a throwaway one-member replica set,
 * chosen as `selectDatabase` chooses: mongodb-memory-server's real mongod when its binary is at hand, else the stand-in.
 * The description says which, and why. Never used by the API, which takes what MONGODB_URI names.
 */
export async function selectReplicaSet(
  runDatabase: SelectedDatabase,
  replicaSetUri: string | undefined,
  sharding?: StandInSharding,
): Promise<SelectedDatabase> {
  if (replicaSetUri) {
    const description = `the replica set at ${redact(replicaSetUri)} (from MONGODB_REPLICA_SET_URI)`;
    return { kind: "external", uri: replicaSetUri, description, stop: async () => {} };
  }
  if (await offersTransactionsAt(runDatabase.uri)) return { ...runDatabase, description: "the same deployment", stop: async () => {} };
  return selectDatabase(undefined, { replicaSet: true, sharding });
}

async function offersTransactionsAt(uri: string): Promise<boolean> {
  const connection = await connectToDatabase(uri, "admin");
  try {
    return offersTransactions(await helloOf(connection.db));
  } finally {
    await connection.close();
  }
}

async function startStandIn(
  mongodReason: string | undefined,
  options: { replicaSet?: string; logger?: OfflineServerLogger } & Partial<StandInSharding> = {},
): Promise<RunningOfflineServer> {
  try {
    const { startOfflineServer } = await import("@bookstore/offline-mongo");
    // Development switches of the stand-in: fail every query that only a collection scan could answer, as mongod's
    // notablescan; offer configureFailPoint, as mongod's enableTestCommands.
    return await startOfflineServer({
      notablescan: process.env.OFFLINE_MONGO_NOTABLESCAN === "1",
      enableTestCommands: process.env.OFFLINE_MONGO_TEST_COMMANDS === "1",
      ...options,
    });
  } catch (error) {
    // Typically a production install (npm ci --omit=dev) or the compiled build, neither of which carries the throwaway databases.
    throw new StartupError(
      `No throwaway database could be started (mongod: ${mongodReason}; the offline stand-in: ${firstLine((error as Error).message)})`,
      "set MONGODB_URI to your MongoDB, or run npm start from a development install (npm ci)",
      { cause: error },
    );
  }
}

async function startMemoryServer(replicaSet: boolean): Promise<{ server?: MongoMemoryServer | MongoMemoryReplSet; reason?: string }> {
  try {
    const { MongoBinary, MongoMemoryReplSet, MongoMemoryServer } = await import("mongodb-memory-server");
    // Finding (or downloading) the binary first keeps a failed download to one line of ours.
    await MongoBinary.getPath();
    // The fail point tests need configureFailPoint on a real mongod as on the stand-in (OFFLINE_MONGO_TEST_COMMANDS, see startStandIn).
    const args = process.env.OFFLINE_MONGO_TEST_COMMANDS === "1" ? ["--setParameter", "enableTestCommands=1"] : [];
    return {
      server: replicaSet
        ? await MongoMemoryReplSet.create({ replSet: { count: 1, args } })
        : await MongoMemoryServer.create({ instance: { args } }),
    };
  } catch (error) {
    return { reason: memoryServerFailure(error as Error) };
  }
}

/** mongodb-memory-server's "no binary" error quotes its internals: say what it means instead. */
function memoryServerFailure(error: Error): string {
  return /binary path/i.test(error.message) ? "no mongod binary on this machine" : firstLine(error.message);
}

function firstLine(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .join(" ")
    .slice(0, 200);
}
