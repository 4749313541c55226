import { setTimeout as sleep } from "node:timers/promises";
import { MongoClient, type Db, type MongoClientOptions } from "mongodb";
import type { Logger } from "pino";
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

export interface LiveDatabase extends DatabaseConnection {
  /** True once the indexes the pattern relies on are in place; until then the service is not ready. */
  indexesInPlace(): boolean;
  /** Resolves once connected with the indexes in place, for start-up steps that need the database; rejects if closed first. */
  ready(): Promise<void>;
}

export interface OpenDatabaseOptions extends MongoClientOptions {
  logger: Pick<Logger, "info" | "warn">;
  /** How long to wait between attempts to create the indexes while the database does not answer. */
  retryMs?: number;
}

/**
 * Opens a client without waiting for the database, so that a server started while MongoDB is down
 * still runs: it answers /readyz with 503 and fails requests fast (see `driverTimeouts`). Connecting
 * and creating the indexes are retried until they succeed. The driver only reconnects by itself
 * once it has connected once: a first `connect()` that fails leaves the client closed, and every
 * operation then fails at once (MongoTopologyClosedError) until the next attempt succeeds.
 */
export function openDatabase(uri: string, dbName: string, { logger, retryMs = 1_000, ...options }: OpenDatabaseOptions): LiveDatabase {
  const client = new MongoClient(uri, options);
  const db = client.db(dbName);
  const closing = new AbortController();
  let inPlace = false;
  const prepareUntilDone = async () => {
    for (let attempt = 1; !closing.signal.aborted; attempt += 1) {
      try {
        await client.connect();
        await ensureIndexes(db);
        inPlace = true;
        logger.info({ attempt }, "database indexes in place");
        return;
      } catch (error) {
        if (closing.signal.aborted) break;
        logger.warn({ err: error, attempt }, `MongoDB at ${redact(uri)} is not usable yet (${(error as Error).message}); trying again in ${retryMs} ms`);
        await sleep(retryMs, undefined, { signal: closing.signal }).catch(() => undefined);
      }
    }
    throw new Error(`The connection to MongoDB at ${redact(uri)} was closed before it was ready.`);
  };
  const prepared = prepareUntilDone();
  // Nobody need wait for it: /readyz reads indexesInPlace, and a start-up step that needs the database calls ready().
  prepared.catch(() => undefined);
  const close = async () => {
    closing.abort();
    await client.close();
  };
  return { client, db, indexesInPlace: () => inPlace, ready: () => prepared, close };
}

/**
 * The driver's per-stage timeouts as shares of one request's time limit, so that an operation that
 * goes through every stage once (server selection, waiting for a pooled connection, connecting,
 * waiting for the reply) still ends within the limit. Server selection gets a tenth: while the
 * database is unreachable, requests fail after it with DATABASE_UNAVAILABLE rather than hang.
 * (`timeoutMS`, the single per-operation timeout, has no effect since driver 7.8.)
 */
export function driverTimeouts(requestTimeoutMs: number): MongoClientOptions {
  const share = (fraction: number) => Math.max(1, Math.floor(requestTimeoutMs * fraction));
  return {
    serverSelectionTimeoutMS: share(0.1),
    waitQueueTimeoutMS: share(0.1),
    connectTimeoutMS: share(0.2),
    socketTimeoutMS: share(0.6),
  };
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
