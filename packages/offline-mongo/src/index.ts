import { OfflineServer, type IndexKeysWritten, type OfflineServerLogger } from "./server";
import { DEFAULT_TTL_MONITOR_INTERVAL_MS } from "./query-engine/ttl";

export type { IndexKeysWritten, OfflineServerLogger } from "./server";
export { OFFLINE_SERVER_VERSION } from "./version";

export interface OfflineServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Where warnings (refused or broken connections) and, with `logCommands`, commands go; by default nowhere. */
  logger?: OfflineServerLogger;
  /** Log every command received through `logger.info`, one line each. */
  logCommands?: boolean;
  /** How often TTL indexes' expired documents are deleted; default 60 s, as mongod. Tests shorten it. */
  ttlMonitorIntervalMs?: number;
  /** mongod's `notablescan` parameter at start-up: a query only a collection scan could answer fails (291). */
  notablescan?: boolean;
  /** mongod's `net.maxIncomingConnections`: connections past it are closed on arrival; default 1,000. */
  maxIncomingConnections?: number;
  /**
   * Answer as the primary of a one-member replica set of this name (mongod's `--replSet`): sessions,
   * retryable writes and multi-document transactions, which a standalone refuses. Off by default.
   */
  replicaSet?: string;
  /** How long a transaction may stay open before the server aborts it; default 60 s, as mongod's `transactionLifetimeLimitSeconds`. */
  transactionLifetimeMs?: number;
  /**
   * mongod's `--setParameter enableTestCommands=1`: offers `configureFailPoint` (the `failCommand` fail point),
   * which tests use to inject errors, blocked and closed connections. Off by default, as on mongod.
   */
  enableTestCommands?: boolean;
  /**
   * Answer as a mongos in front of this many simulated shards: `shardCollection` (hashed or ranged keys), routing of
   * every command to the shards mongos would reach, counted by `{shardTargetingStats: 1}` on admin (`reset: true`
   * clears), and mongos's refusals of writes it cannot target. Data stays in one store. Off by default.
   */
  shards?: number;
  /** With `shards`: shard keys by collection name, applied in every database as if `shardCollection` had been run on it first. */
  shardKeys?: Record<string, Record<string, 1 | "hashed">>;
  /**
   * How much history of writes a replica set keeps for change streams, as mongod's oplog (`--oplogSize`, in MB
   * there): past it the oldest writes go, and a stream resuming from before them fails with 286
   * ChangeStreamHistoryLost. Default 64 MiB.
   */
  oplogSizeBytes?: number;
}

export interface RunningOfflineServer {
  /** `mongodb://127.0.0.1:PORT/` */
  readonly uri: string;
  readonly port: number;
  /** Closes the listener and every open connection. */
  stop(): Promise<void>;
  /** Listens again on the same port after `stop()`, with the data it held, as a mongod restarted on its data files. */
  restart(): Promise<void>;
  /**
   * Records read or written in the server's record stores since it started, transactions' snapshots
   * included: a meter for tests of how much of a collection an operation touches.
   */
  recordsVisited(): number;
  /**
   * Index keys inserted and deleted since it started, transactions' snapshots included (a transaction's keys
   * count again when its commit applies them): what a write costs its indexes, as mongod's `keysInserted` and
   * `keysDeleted`. An update that changes no indexed field writes none.
   */
  indexKeysWritten(): IndexKeysWritten;
  /** The bytes the replica set's history of writes (for change streams) holds now: never more than `oplogSizeBytes`. */
  historyBytes(): number;
}

const SILENT: OfflineServerLogger = { warn: () => {}, info: () => {} };

/** Starts an in-memory server that speaks MongoDB's wire protocol, for machines without mongod. */
export async function startOfflineServer(options: OfflineServerOptions = {}): Promise<RunningOfflineServer> {
  const host = options.host ?? "127.0.0.1";
  const server = new OfflineServer({
    host,
    port: options.port ?? 0,
    logger: options.logger ?? SILENT,
    logCommands: options.logCommands ?? false,
    ttlMonitorIntervalMs: options.ttlMonitorIntervalMs ?? DEFAULT_TTL_MONITOR_INTERVAL_MS,
    parameters: { notablescan: options.notablescan ?? false },
    ...(options.maxIncomingConnections === undefined ? {} : { maxIncomingConnections: options.maxIncomingConnections }),
    ...(options.replicaSet === undefined ? {} : { replicaSet: options.replicaSet }),
    ...(options.transactionLifetimeMs === undefined ? {} : { transactionLifetimeMs: options.transactionLifetimeMs }),
    enableTestCommands: options.enableTestCommands ?? false,
    ...(options.shards === undefined
      ? {}
      : { sharding: { shards: options.shards, ...(options.shardKeys === undefined ? {} : { shardKeys: options.shardKeys }) } }),
    ...(options.oplogSizeBytes === undefined ? {} : { oplogSizeBytes: options.oplogSizeBytes }),
  });
  const port = await server.listen();
  const hostInUri = host.includes(":") ? `[${host}]` : host;
  return {
    uri: `mongodb://${hostInUri}:${port}/`,
    port,
    stop: () => server.stop(),
    restart: async () => void (await server.listen(port)),
    recordsVisited: () => server.recordsVisited,
    indexKeysWritten: () => server.indexKeysWritten,
    historyBytes: () => server.historyBytes,
  };
}
