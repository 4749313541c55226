import {
  ChangeStream,
  ClientSession,
  Collection,
  Db,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Document,
} from "mongodb";
import { ClientEntity, collectionOptions, readPreferenceOf, type EntityMap } from "./entities";
import { assertMatches, UnsupportedError } from "./matching";

/** What a test runs beside its entities: fail points to undo, sessions whose transactions may be left open. */
export interface RunnerState {
  readonly entities: EntityMap;
  /** The runner's own client, which the format calls the internal MongoClient. */
  readonly internal: MongoClient;
  readonly failPoints: Set<string>;
  /** Runs the operations of `createEntities` and of `withTransaction`'s callback. */
  runOperations(operations: Document[]): Promise<void>;
}

type Arguments = Document;

/** The `session` argument as a session entity, and the rest. */
function withSession(state: RunnerState, args: Arguments): { session?: ClientSession; rest: Arguments } {
  const { session, ...rest } = args;
  return session === undefined ? { rest } : { session: state.entities.of(session as string, ClientSession), rest };
}

/** An option object from the rest of the arguments, with the session when named. */
function optionsOf(state: RunnerState, args: Arguments, ...taken: string[]): Document {
  const { session, rest } = withSession(state, args);
  const options: Document = {};
  for (const [key, value] of Object.entries(rest)) if (!taken.includes(key)) options[key] = value;
  if (options["returnDocument"] !== undefined) options["returnDocument"] = String(options["returnDocument"]).toLowerCase();
  if (options["readPreference"] !== undefined) options["readPreference"] = readPreferenceOf(options["readPreference"] as Document);
  return session === undefined ? options : { ...options, session };
}

/** The driver's change stream cursor opens on first use; the format's createChangeStream must send its aggregate at once. */
async function opened(stream: ChangeStream): Promise<ChangeStream> {
  const cursor = (stream as unknown as { cursor: { cursorInit(): Promise<void> } }).cursor;
  await cursor.cursorInit();
  return stream;
}

function bulkModels(requests: Document[]): AnyBulkWriteOperation[] {
  return requests.map((request) => {
    const [name, model] = Object.entries(request)[0] as [string, Document];
    return { [name]: model } as unknown as AnyBulkWriteOperation;
  });
}

async function collectionOperation(state: RunnerState, collection: Collection, name: string, args: Arguments): Promise<unknown> {
  switch (name) {
    case "insertOne":
      return collection.insertOne(args["document"] as Document, optionsOf(state, args, "document"));
    case "insertMany": {
      const result = await collection.insertMany(args["documents"] as Document[], optionsOf(state, args, "documents"));
      return { insertedCount: result.insertedCount, insertedIds: result.insertedIds };
    }
    case "updateOne":
      return collection.updateOne(args["filter"] as Document, args["update"] as Document, optionsOf(state, args, "filter", "update"));
    case "updateMany":
      return collection.updateMany(args["filter"] as Document, args["update"] as Document, optionsOf(state, args, "filter", "update"));
    case "replaceOne":
      return collection.replaceOne(
        args["filter"] as Document,
        args["replacement"] as Document,
        optionsOf(state, args, "filter", "replacement"),
      );
    case "deleteOne":
      return collection.deleteOne(args["filter"] as Document, optionsOf(state, args, "filter"));
    case "deleteMany":
      return collection.deleteMany(args["filter"] as Document, optionsOf(state, args, "filter"));
    case "findOneAndUpdate":
      return collection.findOneAndUpdate(
        args["filter"] as Document,
        args["update"] as Document,
        optionsOf(state, args, "filter", "update"),
      );
    case "findOneAndReplace":
      return collection.findOneAndReplace(
        args["filter"] as Document,
        args["replacement"] as Document,
        optionsOf(state, args, "filter", "replacement"),
      );
    case "findOneAndDelete":
      return collection.findOneAndDelete(args["filter"] as Document, optionsOf(state, args, "filter"));
    case "bulkWrite":
      return collection.bulkWrite(bulkModels(args["requests"] as Document[]), optionsOf(state, args, "requests"));
    case "find":
      return collection.find(args["filter"] as Document, optionsOf(state, args, "filter")).toArray();
    case "aggregate":
      return collection.aggregate(args["pipeline"] as Document[], optionsOf(state, args, "pipeline")).toArray();
    case "countDocuments":
      return collection.countDocuments(args["filter"] as Document, optionsOf(state, args, "filter"));
    case "count":
      return collection.count(args["filter"] as Document, optionsOf(state, args, "filter"));
    case "distinct":
      return collection.distinct(args["fieldName"] as string, args["filter"] as Document, optionsOf(state, args, "fieldName", "filter"));
    case "createIndex":
      return collection.createIndex(args["keys"] as Document, optionsOf(state, args, "keys"));
    case "dropIndex":
      return collection.dropIndex(args["name"] as string, optionsOf(state, args, "name"));
    case "rename":
      return collection.rename(args["to"] as string, optionsOf(state, args, "to"));
    case "createChangeStream":
      return opened(collection.watch(args["pipeline"] as Document[], optionsOf(state, args, "pipeline")));
    default:
      throw new UnsupportedError(`the collection operation ${name}`);
  }
}

async function databaseOperation(state: RunnerState, db: Db, name: string, args: Arguments): Promise<unknown> {
  switch (name) {
    case "runCommand":
      return db.command(args["command"] as Document, optionsOf(state, args, "command", "commandName"));
    case "aggregate":
      return db.aggregate(args["pipeline"] as Document[], optionsOf(state, args, "pipeline")).toArray();
    case "createCollection":
      return db.createCollection(args["collection"] as string, optionsOf(state, args, "collection"));
    case "dropCollection":
      return db.dropCollection(args["collection"] as string, optionsOf(state, args, "collection"));
    case "createChangeStream":
      return opened(db.watch(args["pipeline"] as Document[], optionsOf(state, args, "pipeline")));
    default:
      throw new UnsupportedError(`the database operation ${name}`);
  }
}

async function clientOperation(state: RunnerState, client: MongoClient, name: string, args: Arguments): Promise<unknown> {
  if (name === "createChangeStream") return opened(client.watch(args["pipeline"] as Document[], optionsOf(state, args, "pipeline")));
  throw new UnsupportedError(`the client operation ${name}`);
}

async function sessionOperation(state: RunnerState, session: ClientSession, name: string, args: Arguments): Promise<unknown> {
  switch (name) {
    case "startTransaction":
      return session.startTransaction(collectionOptions(args));
    case "commitTransaction":
      return session.commitTransaction();
    case "abortTransaction":
      return session.abortTransaction();
    case "endSession":
      return session.endSession();
    case "withTransaction": {
      const { callback, ...options } = args;
      return session.withTransaction(() => state.runOperations(callback as Document[]), collectionOptions(options));
    }
    default:
      throw new UnsupportedError(`the session operation ${name}`);
  }
}

/** Waits for the next change, failing the test rather than hanging when none comes. */
async function nextChange(stream: ChangeStream): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no change arrived within 10 s")), 10_000);
  });
  try {
    return await Promise.race([stream.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs an operation on an entity and answers its result, as the format's "Entity Test Operations" describe. */
export async function runEntityOperation(state: RunnerState, object: string, name: string, args: Arguments): Promise<unknown> {
  const entity = state.entities.get(object);
  if (entity instanceof Collection) return collectionOperation(state, entity, name, args);
  if (entity instanceof Db) return databaseOperation(state, entity, name, args);
  if (entity instanceof ClientEntity) return clientOperation(state, entity.client, name, args);
  if (entity instanceof ClientSession) return sessionOperation(state, entity, name, args);
  if (entity instanceof ChangeStream && name === "iterateUntilDocumentOrError") return nextChange(entity);
  if (entity instanceof ChangeStream && name === "close") return entity.close();
  throw new UnsupportedError(`the operation ${name} on ${object}`);
}

async function configureFailPoint(state: RunnerState, args: Arguments): Promise<void> {
  const client = state.entities.of(args["client"] as string, ClientEntity).client;
  const failPoint = args["failPoint"] as Document;
  await client.db("admin").command(failPoint);
  state.failPoints.add(failPoint["configureFailPoint"] as string);
}

/** The driver's transaction states by the format's names for them. */
const TRANSACTION_STATES: Readonly<Record<string, string>> = {
  NO_TRANSACTION: "none",
  STARTING_TRANSACTION: "starting",
  TRANSACTION_IN_PROGRESS: "in_progress",
  TRANSACTION_COMMITTED: "committed",
  TRANSACTION_COMMITTED_EMPTY: "committed",
  TRANSACTION_ABORTED: "aborted",
};

function assertSessionState(state: RunnerState, args: Arguments, pinned: boolean | undefined): void {
  const session = state.entities.of(args["session"] as string, ClientSession);
  if (pinned !== undefined) {
    // A replica set never pins a session to a server: only mongos and load balancers do.
    if (pinned) throw new Error("assertSessionPinned: a session is pinned only on a sharded or load-balanced topology");
    return;
  }
  const expected = String(args["state"]);
  // The driver keeps the state on an internal field, which its public types leave out.
  const driverState = (session as unknown as { transaction: { state: string } }).transaction.state;
  const actual = TRANSACTION_STATES[driverState] ?? driverState;
  if (actual !== expected) throw new Error(`expected transaction state ${expected}, got ${actual}`);
}

async function collectionNames(state: RunnerState, args: Arguments): Promise<string[]> {
  const list = await state.internal
    .db(args["databaseName"] as string)
    .listCollections({}, { nameOnly: true })
    .toArray();
  return list.map((collection) => collection.name);
}

/** The collection's index names; none when the collection does not exist (mongod answers listIndexes with 26 then). */
async function indexNames(state: RunnerState, args: Arguments): Promise<string[]> {
  const collection = state.internal.db(args["databaseName"] as string).collection(args["collectionName"] as string);
  const indexes = await collection
    .listIndexes()
    .toArray()
    .catch((error: unknown) => {
      if (error instanceof MongoServerError && error.code === 26) return [];
      throw error;
    });
  return indexes.map((index) => index["name"] as string);
}

/** The format's "Special Test Operations" this runner knows. */
export async function runSpecialOperation(state: RunnerState, name: string, args: Arguments): Promise<void> {
  switch (name) {
    case "failPoint":
      return configureFailPoint(state, args);
    case "targetedFailPoint":
      throw new UnsupportedError("targetedFailPoint (it needs a session pinned to a mongos)");
    case "assertSessionPinned":
      return assertSessionState(state, args, true);
    case "assertSessionUnpinned":
      return assertSessionState(state, args, false);
    case "assertSessionTransactionState":
      return assertSessionState(state, args, undefined);
    case "assertCollectionExists":
    case "assertCollectionNotExists": {
      const exists = (await collectionNames(state, args)).includes(args["collectionName"] as string);
      if (exists !== (name === "assertCollectionExists"))
        throw new Error(`${name}: ${args["collectionName"]} ${exists ? "exists" : "does not exist"}`);
      return;
    }
    case "assertIndexExists":
    case "assertIndexNotExists": {
      const exists = (await indexNames(state, args)).includes(args["indexName"] as string);
      if (exists !== (name === "assertIndexExists"))
        throw new Error(`${name}: ${args["indexName"]} ${exists ? "exists" : "does not exist"}`);
      return;
    }
    case "createEntities":
      return state.entities.create(args["entities"] as Document[]);
    default:
      throw new UnsupportedError(`the special operation ${name}`);
  }
}

/** A driver result as the format compares it: the driver's result classes as plain documents. */
export function asDocument(result: unknown): unknown {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return result;
  if (result instanceof ChangeStream) return result;
  if ("acknowledged" in result || "insertedIds" in result) return { ...(result as Document) };
  return result;
}

export { assertMatches };
