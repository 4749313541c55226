import { MongoClient, MongoServerError, type Collection, type Db, type Document, type Filter, type UpdateFilter } from "mongodb";
import { startOfflineServer, type OfflineServerOptions, type RunningOfflineServer } from "../src";

interface TestServer {
  readonly uri: string;
  stop(): Promise<void>;
}

/**
 * The database under test: `MONGODB_URI` when set (e.g. a real mongod), else a fresh offline server.
 * Tests of sessions and transactions need a replica set: `MONGODB_REPLICA_SET_URI` when set, else an
 * offline server answering as the primary of a one-member set.
 */
async function startTestServer(offlineServer?: OfflineServerOptions): Promise<TestServer> {
  const fromEnvironment = process.env[offlineServer?.replicaSet === undefined ? "MONGODB_URI" : "MONGODB_REPLICA_SET_URI"];
  if (fromEnvironment) return { uri: fromEnvironment, stop: async () => undefined };
  return startOfflineServer(offlineServer);
}

/** A database name unique to one test file (and run), so files never see each other's data. */
export function uniqueDbName(file: string): string {
  return `offline_test_${file}_${process.pid}_${Date.now().toString(36)}`;
}

/**
 * A client of the one server at `uri`; `discover` lets the driver find a replica set's members from it instead;
 * `appName` names the application in its handshake.
 */
export function newClient(uri: string, { discover = false, appName }: { discover?: boolean; appName?: string } = {}): MongoClient {
  return new MongoClient(uri, {
    serverSelectionTimeoutMS: 5000,
    ...(discover ? {} : { directConnection: true }),
    ...(appName === undefined ? {} : { appName }),
  });
}

/** Read options that keep int32, int64 and double values as their BSON classes instead of JS numbers. */
export const RAW_NUMBERS = { promoteValues: false, promoteLongs: false } as const;

export interface TestDatabase {
  /** The server's connection string. */
  readonly uri: string;
  /** A client connected for the whole file. */
  readonly client: MongoClient;
  /** A database unique to this file, dropped after its last test. */
  readonly db: Db;
  /** A collection no other test of this file uses: `${prefix}1`, `${prefix}2`, ... */
  freshCollection(prefix?: string): Collection;
  /** The stand-in this file started (`alwaysOffline`), for its meters, which no other server has. */
  readonly offline: RunningOfflineServer;
}

export interface TestDatabaseOptions {
  /** Start a fresh offline server even when `MONGODB_URI` names another server. */
  alwaysOffline?: boolean;
  /** Options for an offline server this file starts (e.g. a TTL monitor interval tests can wait for). */
  offlineServer?: OfflineServerOptions;
}

/**
 * Registers the file's beforeAll/afterAll: start the server under test (see `startTestServer`),
 * connect a client, pick a database unique to `file`; afterwards drop it, close and stop.
 * Read `db`, `client` and `uri` inside tests and hooks, not at module level: they exist once beforeAll ran.
 */
export function useTestDatabase(file: string, options: TestDatabaseOptions = {}): TestDatabase {
  let server: TestServer | undefined;
  let offline: RunningOfflineServer | undefined;
  let client: MongoClient | undefined;
  let db: Db | undefined;
  let collections = 0;

  beforeAll(async () => {
    offline = options.alwaysOffline ? await startOfflineServer(options.offlineServer) : undefined;
    server = offline ?? (await startTestServer(options.offlineServer));
    client = newClient(server.uri, { discover: options.offlineServer?.replicaSet !== undefined });
    db = client.db(uniqueDbName(file));
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
    await server?.stop();
  });

  function ready<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`${what} is only available once beforeAll has run`);
    return value;
  }

  return {
    get uri() {
      return ready(server, "uri").uri;
    },
    get client() {
      return ready(client, "client");
    },
    get db() {
      return ready(db, "db");
    },
    get offline() {
      return ready(offline, "offline (a stand-in this file started with alwaysOffline)");
    },
    freshCollection(prefix = "c") {
      collections += 1;
      return ready(db, "db").collection(`${prefix}${collections}`);
    },
  };
}

/**
 * The driver's update typings reject some valid updates on schema-less documents (e.g. `$push` to
 * a field whose type it cannot infer); tests that exercise such updates pass them through here.
 */
export function untypedUpdate(update: Document): UpdateFilter<Document> {
  return update;
}

/** The same for filters the driver's typings do not foresee (e.g. `$type` with a list of aliases). */
export function untypedFilter(filter: Document): Filter<Document> {
  return filter;
}

/** The server error `promise` fails with; succeeding, or failing otherwise, fails the test. */
export async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof MongoServerError)) throw new Error(`expected a server error, got ${String(error)}`);
  return error;
}
