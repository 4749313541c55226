import type {
  AnyBulkWriteOperation,
  ChangeStream,
  ClientSession,
  Collection,
  Db,
  Document,
  MongoClient,
  ReadConcernLike,
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

/** Runs one operation of the unified format and returns its result (for `expectResult` and `saveResultAsEntity`). */
export async function runOperation(operation: Operation, entities: Entities, hooks: RunnerHooks): Promise<unknown> {
  const args = operation.arguments ?? {};
  if (operation.object === "testRunner") return runnerOperation(operation.name, args, entities, hooks);
  const target = entity<unknown>(entities, operation.object);
  const session = args["session"] === undefined ? undefined : entity<ClientSession>(entities, args["session"]);
  switch (operation.name) {
    // Collections
    case "insertOne":
      return (target as Collection).insertOne(args["document"] as Document, options(entities, args, ["document"]));
    case "insertMany":
      return (target as Collection).insertMany(args["documents"] as Document[], options(entities, args, ["documents"]));
    case "updateOne":
      return (target as Collection).updateOne(
        args["filter"] as Document,
        args["update"] as Document,
        options(entities, args, ["filter", "update"]),
      );
    case "updateMany":
      return (target as Collection).updateMany(
        args["filter"] as Document,
        args["update"] as Document,
        options(entities, args, ["filter", "update"]),
      );
    case "replaceOne":
      return (target as Collection).replaceOne(
        args["filter"] as Document,
        args["replacement"] as Document,
        options(entities, args, ["filter", "replacement"]),
      );
    case "deleteOne":
      return (target as Collection).deleteOne(args["filter"] as Document, options(entities, args, ["filter"]));
    case "deleteMany":
      return (target as Collection).deleteMany(args["filter"] as Document, options(entities, args, ["filter"]));
    case "findOneAndUpdate":
      return (target as Collection).findOneAndUpdate(
        args["filter"] as Document,
        args["update"] as Document,
        options(entities, args, ["filter", "update"]),
      );
    case "findOneAndReplace":
      return (target as Collection).findOneAndReplace(
        args["filter"] as Document,
        args["replacement"] as Document,
        options(entities, args, ["filter", "replacement"]),
      );
    case "findOneAndDelete":
      return (target as Collection).findOneAndDelete(args["filter"] as Document, options(entities, args, ["filter"]));
    case "bulkWrite":
      return (target as Collection).bulkWrite(args["requests"] as AnyBulkWriteOperation[], options(entities, args, ["requests"]));
    case "find":
      return (target as Collection).find((args["filter"] as Document | undefined) ?? {}, options(entities, args, ["filter"])).toArray();
    case "countDocuments":
      return (target as Collection).countDocuments((args["filter"] as Document | undefined) ?? {}, options(entities, args, ["filter"]));
    case "count":
      return (target as Collection).count((args["filter"] as Document | undefined) ?? {}, options(entities, args, ["filter"]));
    case "estimatedDocumentCount":
      return (target as Collection).estimatedDocumentCount(options(entities, args, []));
    case "distinct":
      return (target as Collection).distinct(
        String(args["fieldName"]),
        (args["filter"] as Document | undefined) ?? {},
        options(entities, args, ["fieldName", "filter"]),
      );
    case "aggregate":
      return (target as Collection | Db).aggregate(args["pipeline"] as Document[], options(entities, args, ["pipeline"])).toArray();
    case "createIndex":
      return (target as Collection).createIndex(args["keys"] as Document, options(entities, args, ["keys"]));
    case "dropIndex":
      return (target as Collection).dropIndex(String(args["name"]), options(entities, args, ["name"]));
    case "rename":
      return (target as Collection).rename(String(args["to"]), options(entities, args, ["to"]));
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
    case "createCollection":
      return (target as Db).createCollection(String(args["collection"]), options(entities, args, ["collection"]));
    case "dropCollection":
      return (target as Db).dropCollection(String(args["collection"]), options(entities, args, ["collection"]));
    // Change streams
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
    case "withTransaction":
      return (target as ClientSession).withTransaction(() => hooks.runOperations(args["callback"] as Document[]), transactionOptions(args));
    default:
      void session;
      throw new Unsupported(`the operation ${operation.name}`);
  }
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
