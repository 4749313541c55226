import { AsyncResource } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { MongoClient, MongoError, type Db, type MongoClientOptions } from "mongodb";
import type { Logger } from "pino";
import { isDuplicateKeyError, isWaitQueueTimeout, PageRepairInProgressError } from "./errors";
import { indexLabel, type EnsureIndexes, type RequiredIndex } from "./indexes";
import { explainReplicaSetMismatch } from "./replica-set-name";
import { watchConnection } from "./watchdog";

export interface DatabaseConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects and checks the server answers; handed `ensureIndexes`, also makes sure the indexes exist
 * before anything is served. `npm run reconcile` connects without, so it can start (and repair
 * duplicate pages) when the unique page index is missing and cannot be created.
 */
export async function connectToDatabase(
  uri: string,
  dbName: string,
  options: MongoClientOptions = {},
  { ensureIndexes }: { ensureIndexes?: EnsureIndexes } = {},
): Promise<DatabaseConnection> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, ...options });
  try {
    await client.connect();
    const db = client.db(dbName);
    await ensureIndexes?.(db);
    return { client, db, close: () => client.close() };
  } catch (error) {
    await client.close();
    // It names its own cause and fix; the database itself is fine.
    if (error instanceof PageRepairInProgressError) throw error;
    const fix = (await explainReplicaSetMismatch(uri, error)) ?? "check that it is running and that MONGODB_URI is right";
    throw new Error(`Cannot use MongoDB at ${redact(uri)} (${(error as Error).message}): ${fix}.`, { cause: error });
  }
}

export interface LiveDatabase extends DatabaseConnection {
  /** True once the indexes the pattern relies on are known to be in place; false again from a lost connection until they are checked. */
  indexesInPlace(): boolean;
  /** Resolves once connected with the indexes in place, for start-up steps that need the database; rejects if closed first. */
  ready(): Promise<void>;
  /** False when the process cannot recover its connection by itself (see `watchConnection`): /healthz fails, so that a supervisor restarts it. */
  recoverable(): boolean;
}

export interface OpenDatabaseOptions extends MongoClientOptions {
  /** The indexes to keep in place: the service is not ready until this resolves. */
  ensureIndexes: EnsureIndexes;
  logger: Pick<Logger, "debug" | "info" | "warn" | "error">;
  /** How long to wait between attempts to connect and create the indexes while the database does not answer. */
  retryMs?: number;
  /** How often to look for indexes lost without a reconnection (a dropped index or collection), and to retry creating an index that duplicates block. */
  indexCheckMs?: number;
}

/**
 * Opens a client without waiting for the database, so that a server started while MongoDB is down
 * still runs: it answers /readyz with 503 and fails requests fast (see `driverTimeouts`). Connecting
 * and creating the indexes are retried until they succeed. The driver only reconnects by itself
 * once it has connected once: a first `connect()` that fails leaves the client closed, and every
 * operation then fails at once (MongoTopologyClosedError) until the next attempt succeeds.
 *
 * The indexes are checked again, and re-created when missing, whenever the driver's pool becomes ready
 * after being cleared (the database came back, perhaps as a fresh instance without them) and every
 * `indexCheckMs` (an index or collection dropped while connected). From a cleared pool until the check
 * passes the service is not ready; purchases meanwhile refuse to open pages (see `UNIQUE_PAGE_INDEX`).
 */
export function openDatabase(uri: string, dbName: string, options: OpenDatabaseOptions): LiveDatabase {
  return new LiveConnection(uri, dbName, options);
}

/**
 * Where a live connection stands: `waiting` until its indexes are known to be in place (at first, and
 * again from a cleared pool or a failed check until a check passes), `ready` while they are, `closed` for good.
 */
export type ConnectionState = "waiting" | "ready" | "closed";

class LiveConnection implements LiveDatabase {
  readonly client: MongoClient;
  readonly db: Db;
  private state: ConnectionState = "waiting";
  /** Whether another check must run once the current one ends: a pool became ready or the period came round meanwhile. */
  private checkDue = false;
  private checking: Promise<void> | undefined;
  private readonly closing = new AbortController();
  private readonly firstReady: Promise<void>;
  // Settle `firstReady` once: the first time the indexes are in place, or when the connection is closed before that.
  private markReady = () => {};
  private markClosed = (_reason: Error) => {};
  private readonly periodic: NodeJS.Timeout;
  private readonly watchdog: ReturnType<typeof watchConnection>;
  private readonly retryMs: number;
  private readonly indexCheckMs: number;
  private readonly ensureIndexes: EnsureIndexes;
  private readonly logger: OpenDatabaseOptions["logger"];

  constructor(
    private readonly uri: string,
    dbName: string,
    { ensureIndexes, logger, retryMs = 1_000, indexCheckMs = 10_000, ...options }: OpenDatabaseOptions,
  ) {
    this.client = new MongoClient(uri, options);
    this.db = this.client.db(dbName);
    this.ensureIndexes = ensureIndexes;
    this.logger = logger;
    this.retryMs = retryMs;
    this.indexCheckMs = indexCheckMs;
    this.firstReady = new Promise<void>((resolve, reject) => ([this.markReady, this.markClosed] = [resolve, reject]));
    // Nobody need wait for it: /readyz reads indexesInPlace, and a start-up step that needs the database calls ready().
    this.firstReady.catch(() => undefined);

    this.client.on("connectionPoolCleared", () => this.enter("waiting"));
    this.client.on("connectionPoolReady", this.check);
    this.periodic = setInterval(this.check, indexCheckMs).unref();
    this.check();
    this.watchdog = watchConnection(this.client, {
      probe: () => answersAFreshClient(uri, options),
      reachable: () => isDatabaseReachable(this.db),
      reconnect: async () => {
        if (this.closed()) return;
        this.enter("waiting");
        await this.client.close();
        this.check();
      },
      onReconnect: (unavailableMs) =>
        logger.warn(
          { unavailableMs },
          `MongoDB at ${redact(uri)} answers a fresh connection but not this client, unreachable for ${Math.round(unavailableMs / 1000)} s: reconnecting it (see src/db/watchdog.ts)`,
        ),
    });
  }

  readonly indexesInPlace = () => this.state === "ready";
  readonly ready = () => this.firstReady;
  readonly recoverable = () => this.watchdog.healthy();

  readonly close = async () => {
    this.enter("closed");
    this.closing.abort();
    this.watchdog.stop();
    clearInterval(this.periodic);
    this.markClosed(new Error(`The connection to MongoDB at ${redact(this.uri)} was closed before it was ready.`));
    await this.client.close();
  };

  // A method, not a comparison in place: the state changes while a check awaits.
  private closed(): boolean {
    return this.state === "closed";
  }

  /** Nothing leaves `closed`. */
  private enter(state: ConnectionState): void {
    if (this.state !== "closed") this.state = state;
  }

  // Runs outside any request's async context, so its commands are not counted as the request's.
  private readonly check = AsyncResource.bind(() => {
    this.checkDue = true;
    this.checking ??= this.checkUntilInPlace().finally(() => {
      this.checking = undefined;
      if (this.checkDue && !this.closed()) this.check();
    });
  });

  private async checkUntilInPlace(): Promise<void> {
    for (let attempt = 1; this.checkDue && !this.closed(); attempt += 1) {
      this.checkDue = false;
      try {
        await this.client.connect();
        const created = await this.ensureIndexes(this.db);
        if (created.length > 0) await logCreatedIndexes(this.db, created, attempt, this.logger);
        this.enter("ready");
        this.markReady();
      } catch (error) {
        if (this.closed()) return;
        // A pool busy with other work (a bulk load, say) says nothing about the database or its indexes: look again next period.
        if (this.state === "ready" && isWaitQueueTimeout(error)) {
          this.logger.debug({ attempt }, "index check skipped: no pooled connection free in time");
          return;
        }
        this.enter("waiting");
        this.checkDue = true;
        await sleep(await this.reportFailure(error, attempt), undefined, { signal: this.closing.signal }).catch(() => undefined);
      }
    }
  }

  /** Logs why the check failed; answers how long to wait before the next. Waiting cannot fix what only reconcile can: it says so, and looks again at the slower pace. */
  private async reportFailure(error: unknown, attempt: number): Promise<number> {
    const blocked = isDuplicateKeyError(error)
      ? "the unique page index cannot be created over duplicate pages: run `npm run reconcile -- --fix`"
      : error instanceof PageRepairInProgressError
        ? error.message
        : undefined;
    if (blocked) {
      this.logger.error({ err: error, attempt }, blocked);
      return this.indexCheckMs;
    }
    // The driver says only that server selection timed out: name the likely cause when it is the set's name.
    const mismatch = await explainReplicaSetMismatch(this.uri, error);
    this.logger.warn(
      // A driver error's message says it all; its stack would only bury the line that matters.
      error instanceof MongoError ? { errorName: error.name, attempt } : { err: error, attempt },
      `MongoDB at ${redact(this.uri)} is not usable yet (${(error as Error).message}${mismatch ? `: ${mismatch}` : ""}); trying again in ${this.retryMs} ms`,
    );
    return this.retryMs;
  }
}

/** True when a new client, sharing nothing with the service's, reaches the database and has it answer a ping. */
async function answersAFreshClient(uri: string, options: MongoClientOptions): Promise<boolean> {
  // Its own commands are no request's and no metric's.
  const probe = new MongoClient(uri, { ...options, monitorCommands: false, maxPoolSize: 1 });
  try {
    await probe.connect();
    await probe.db("admin").command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/**
 * Indexes created over empty collections are a new database's first start, as every `npm start` has;
 * over stored documents they mean a deployment ran without them, which an operator should hear about.
 */
async function logCreatedIndexes(db: Db, created: RequiredIndex[], attempt: number, logger: OpenDatabaseOptions["logger"]): Promise<void> {
  const collections = [...new Set(created.map(({ collection }) => collection))];
  const sizes = await Promise.all(collections.map((name) => db.collection(name).estimatedDocumentCount()));
  const fields = { created: created.map(indexLabel), attempt };
  if (sizes.some((size) => size > 0)) logger.warn(fields, "database indexes were missing and have been created");
  else logger.info(fields, `created the ${created.length} indexes of a new database`);
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
