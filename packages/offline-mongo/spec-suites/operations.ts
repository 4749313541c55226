import type {
  AnyBulkWriteOperation,
  ChangeStream,
  ClientSession,
  Collection,
  Db,
  Document,
  MongoClient,
  ReadConcernLike,
  RunCommandCursor,
  TransactionOptions,
} from "mongodb";
import { Unsupported } from "./matching";

/** The objects a test names by id: clients, databases, collections, sessions, change streams, saved results. */
export interface Entities {
  get(id: string): unknown;
  set(id: string, value: unknown): void;
}

/** What a test-runner operation needs from the runner (fail points, the lsids a client sent). */
export interface RunnerHooks {
  failPoint(client: MongoClient, failPoint: Document): Promise<void>;
  startedCommands(clientId: string): Document[];
  /** Whether the namespace has a collection, and its index names: asked of the runner's own client. */
  collectionNames(database: string): Promise<string[]>;
  indexNames(database: string, collection: string): Promise<string[]>;
  createEntities(list: Document[]): Promise<void>;
  /** Runs the operations a `withTransaction` callback lists. */
  runOperations(operations: Document[]): Promise<void>;
}

export interface Operation {
  readonly name: string;
  readonly object: string;
  readonly arguments?: Document;
}

function entity<T>(entities: Entities, id: unknown): T {
  const found = entities.get(String(id));
  if (found === undefined) throw new Error(`no entity '${String(id)}'`);
  return found as T;
}

/** An operation's options, the session replaced by the session entity it names. */
function options(entities: Entities, args: Document, leaveOut: readonly string[]): Document {
  const out: Document = {};
  for (const [key, value] of Object.entries(args)) {
    if (leaveOut.includes(key)) continue;
    if (key === "session") out[key] = entity<ClientSession>(entities, value);
    else if (key === "returnDocument") out[key] = String(value).toLowerCase();
    else out[key] = value;
  }
  return out;
}

function transactionOptions(args: Document | undefined): TransactionOptions {
  const options: TransactionOptions = {};
  if (args?.["readConcern"] !== undefined) options.readConcern = args["readConcern"] as ReadConcernLike;
  if (args?.["writeConcern"] !== undefined) options.writeConcern = args["writeConcern"] as Document;
  if (args?.["readPreference"] !== undefined) options.readPreference = (args["readPreference"] as Document)["mode"] as never;
  if (args?.["maxCommitTimeMS"] !== undefined) options.maxCommitTimeMS = Number(args["maxCommitTimeMS"]);
  return options;
}

const TRANSACTION_STATES: Record<string, string> = {
  NO_TRANSACTION: "none",
  STARTING_TRANSACTION: "starting",
  TRANSACTION_IN_PROGRESS: "in_progress",
  TRANSACTION_COMMITTED: "committed",
  TRANSACTION_COMMITTED_EMPTY: "committed",
  TRANSACTION_ABORTED: "aborted",
};

type Positional = unknown;
type CollectionOperation = readonly [readonly string[], (collection: Collection, ...args: Positional[]) => Promise<unknown>];

const filterOf = (filter: Positional): Document => (filter as Document | undefined) ?? {};

/**
 * The collection operations the suites use: the arguments they take in order (the rest are options), and the
 * driver's method. The last argument each method is handed is the options.
 */
const COLLECTION_OPERATIONS: Record<string, CollectionOperation> = {
  insertOne: [["document"], (c, document, o) => c.insertOne(document as Document, o as Document)],
  insertMany: [["documents"], (c, documents, o) => c.insertMany(documents as Document[], o as Document)],
  updateOne: [["filter", "update"], (c, filter, update, o) => c.updateOne(filterOf(filter), update as Document, o as Document)],
  updateMany: [["filter", "update"], (c, filter, update, o) => c.updateMany(filterOf(filter), update as Document, o as Document)],
  replaceOne: [["filter", "replacement"], (c, filter, doc, o) => c.replaceOne(filterOf(filter), doc as Document, o as Document)],
  deleteOne: [["filter"], (c, filter, o) => c.deleteOne(filterOf(filter), o as Document)],
  deleteMany: [["filter"], (c, filter, o) => c.deleteMany(filterOf(filter), o as Document)],
  findOneAndUpdate: [
    ["filter", "update"],
    (c, filter, update, o) => c.findOneAndUpdate(filterOf(filter), update as Document, o as Document),
  ],
  findOneAndReplace: [
    ["filter", "replacement"],
    (c, filter, doc, o) => c.findOneAndReplace(filterOf(filter), doc as Document, o as Document),
  ],
  findOneAndDelete: [["filter"], (c, filter, o) => c.findOneAndDelete(filterOf(filter), o as Document)],
  bulkWrite: [["requests"], (c, requests, o) => c.bulkWrite(requests as AnyBulkWriteOperation[], o as Document)],
  find: [["filter"], (c, filter, o) => c.find(filterOf(filter), o as Document).toArray()],
  countDocuments: [["filter"], (c, filter, o) => c.countDocuments(filterOf(filter), o as Document)],
  count: [["filter"], (c, filter, o) => c.count(filterOf(filter), o as Document)],
  estimatedDocumentCount: [[], (c, o) => c.estimatedDocumentCount(o as Document)],
  distinct: [["fieldName", "filter"], (c, field, filter, o) => c.distinct(String(field), filterOf(filter), o as Document)],
  createIndex: [["keys"], (c, keys, o) => c.createIndex(keys as Document, o as Document)],
  dropIndex: [["name"], (c, name, o) => c.dropIndex(String(name), o as Document)],
  rename: [["to"], (c, to, o) => c.rename(String(to), o as Document)],
};

/** Runs one operation of the unified format and returns its result (for `expectResult` and `saveResultAsEntity`). */
export async function runOperation(operation: Operation, entities: Entities, hooks: RunnerHooks): Promise<unknown> {
  const args = operation.arguments ?? {};
  if (operation.object === "testRunner") return runnerOperation(operation.name, args, entities, hooks);
  const target = entity<unknown>(entities, operation.object);
  const onCollection = COLLECTION_OPERATIONS[operation.name];
  if (onCollection !== undefined) {
    const [positional, run] = onCollection;
    return run(target as Collection, ...positional.map((name) => args[name]), options(entities, args, positional));
  }
  switch (operation.name) {
    case "aggregate":
      return (target as Collection | Db).aggregate(args["pipeline"] as Document[], options(entities, args, ["pipeline"])).toArray();
    case "createChangeStream": {
      const watched = target as Collection | Db | MongoClient;
      const stream = watched.watch((args["pipeline"] as Document[] | undefined) ?? [], options(entities, args, ["pipeline"]));
      // The format has the stream opened now (its aggregate sent), not at its first iteration.
      await (stream as unknown as { cursor: { cursorInit(): Promise<void> } }).cursor.cursorInit();
      return stream;
    }
    // Databases
    case "runCommand":
      return (target as Db).command(args["command"] as Document, options(entities, args, ["command", "commandName"]));
    case "modifyCollection": {
      const { collection, ...changes } = options(entities, args, []);
      return (target as Db).command({ collMod: collection as string, ...changes });
    }
    case "runCursorCommand":
      return commandCursor(target as Db, args, entities).toArray();
    case "createCommandCursor": {
      // The format has the command sent now (its first batch read), not at the cursor's first iteration.
      const cursor = commandCursor(target as Db, args, entities);
      await (cursor as unknown as { cursorInit(): Promise<void> }).cursorInit();
      return cursor;
    }
    case "createCollection":
      return (target as Db).createCollection(String(args["collection"]), options(entities, args, ["collection"]));
    case "dropCollection":
      return (target as Db).dropCollection(String(args["collection"]), options(entities, args, ["collection"]));
    // Atlas Search indexes (the driver's helpers; a server without Atlas Search answers them)
    case "createSearchIndex":
      return (target as Collection).createSearchIndex(args["model"] as never);
    case "createSearchIndexes":
      return (target as Collection).createSearchIndexes(args["models"] as never);
    case "dropSearchIndex":
      return (target as Collection).dropSearchIndex(String(args["name"]));
    case "updateSearchIndex":
      return (target as Collection).updateSearchIndex(String(args["name"]), args["definition"] as Document);
    case "listSearchIndexes":
      return (
        args["name"] === undefined
          ? (target as Collection).listSearchIndexes(args["aggregationOptions"] as Document)
          : (target as Collection).listSearchIndexes(String(args["name"]), args["aggregationOptions"] as Document)
      ).toArray();
    // Change streams and cursors
    case "iterateUntilDocumentOrError":
      return (target as ChangeStream).next();
    case "iterateOnce":
      return (target as ChangeStream).tryNext();
    case "close":
      return (target as ChangeStream).close();
    // Sessions
    case "startTransaction":
      return (target as ClientSession).startTransaction(transactionOptions(args));
    case "commitTransaction":
      return (target as ClientSession).commitTransaction();
    case "abortTransaction":
      return (target as ClientSession).abortTransaction();
    case "endSession":
      return (target as ClientSession).endSession();
    case "getSnapshotTime":
      // The time the session's first snapshot read learned (the driver keeps it internally, untyped).
      return (target as ClientSession & { snapshotTime?: unknown }).snapshotTime;
    // Listings
    case "listDatabases":
      return (target as MongoClient)
        .db("admin")
        .admin()
        .listDatabases(options(entities, args, []));
    case "listCollections":
      return (target as Db).listCollections((args["filter"] as Document | undefined) ?? {}, options(entities, args, ["filter"])).toArray();
    case "listIndexes":
      return (target as Collection).listIndexes(options(entities, args, [])).toArray();
    case "withTransaction":
      return (target as ClientSession).withTransaction(() => hooks.runOperations(args["callback"] as Document[]), transactionOptions(args));
    default:
      throw new Unsupported(`the operation ${operation.name}`);
  }
}

/** `runCursorCommand`'s cursor: the command, with the cursor options the format lists set on the driver's cursor. */
function commandCursor(db: Db, args: Document, entities: Entities): RunCommandCursor {
  const session = args["session"] === undefined ? undefined : entity<ClientSession>(entities, args["session"]);
  const cursor = db.runCursorCommand(args["command"] as Document, session === undefined ? {} : { session });
  if (args["batchSize"] !== undefined) cursor.setBatchSize(Number(args["batchSize"]));
  if (args["maxTimeMS"] !== undefined) cursor.setMaxTimeMS(Number(args["maxTimeMS"]));
  if (args["comment"] !== undefined) cursor.setComment(args["comment"]);
  if (args["cursorType"] !== undefined || args["timeoutMode"] !== undefined)
    throw new Unsupported("runCursorCommand's cursorType and timeoutMode");
  return cursor;
}

async function runnerOperation(name: string, args: Document, entities: Entities, hooks: RunnerHooks): Promise<unknown> {
  switch (name) {
    case "failPoint":
      return hooks.failPoint(entity<MongoClient>(entities, args["client"]), args["failPoint"] as Document);
    case "targetedFailPoint": {
      // One member: the session is pinned to it, the only server there is.
      const session = entity<ClientSession & { client: MongoClient }>(entities, args["session"]);
      return hooks.failPoint(session.client, args["failPoint"] as Document);
    }
    case "createEntities":
      return hooks.createEntities(args["entities"] as Document[]);
    case "assertSessionDirty":
    case "assertSessionNotDirty": {
      // Whether a network error marked the session's server session dirty (to be discarded): the driver's own field.
      const session = entity<ClientSession & { serverSession?: { isDirty?: boolean } }>(entities, args["session"]);
      const dirty = session.serverSession?.isDirty === true;
      return check(dirty === (name === "assertSessionDirty"), `the session is ${dirty ? "dirty" : "not dirty"}`);
    }
    case "assertSessionPinned":
      return check(entity<ClientSession>(entities, args["session"]).isPinned, "the session is not pinned");
    case "assertSessionUnpinned":
      return check(!entity<ClientSession>(entities, args["session"]).isPinned, "the session is pinned");
    case "assertSessionTransactionState": {
      // The driver's transaction state is internal (not in its typings); the format asks for it by name.
      const session = entity<ClientSession & { transaction: { state: string } }>(entities, args["session"]);
      const state = TRANSACTION_STATES[session.transaction.state];
      return check(state === args["state"], `the transaction state is ${String(state)}, not ${String(args["state"])}`);
    }
    case "assertCollectionExists":
    case "assertCollectionNotExists": {
      const exists = (await hooks.collectionNames(String(args["databaseName"]))).includes(String(args["collectionName"]));
      return check(exists === (name === "assertCollectionExists"), `${String(args["collectionName"])} exists: ${String(exists)}`);
    }
    case "assertIndexExists":
    case "assertIndexNotExists": {
      const names = await hooks.indexNames(String(args["databaseName"]), String(args["collectionName"]));
      const exists = names.includes(String(args["indexName"]));
      return check(exists === (name === "assertIndexExists"), `index ${String(args["indexName"])} exists: ${String(exists)}`);
    }
    case "assertSameLsidOnLastTwoCommands":
    case "assertDifferentLsidOnLastTwoCommands": {
      const [before, last] = hooks.startedCommands(String(args["client"])).slice(-2);
      const same = JSON.stringify(before?.["lsid"]) === JSON.stringify(last?.["lsid"]);
      return check(same === (name === "assertSameLsidOnLastTwoCommands"), `the last two lsids are ${same ? "the same" : "different"}`);
    }
    default:
      throw new Unsupported(`the test runner operation ${name}`);
  }
}

/** A failed assertion of the test runner's own operations. */
export class AssertionFailed extends Error {}

function check(condition: boolean, message: string): void {
  if (!condition) throw new AssertionFailed(message);
}

export { entity };
