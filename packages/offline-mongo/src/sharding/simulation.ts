import type { Document } from "bson";
import { ErrorCode, MongoCommandError } from "../errors";
import type { Storage } from "../query-engine/storage";
import { formatDocument, isDocument, isNumeric, toNumber } from "../values/values";
import {
  allShards,
  isExactIdQuery,
  parseShardKey,
  pinsWholeKey,
  shardOfDocument,
  targetsOf,
  touchesKey,
  type ShardKey,
  type Targets,
} from "./shard-key";
import { TargetingStats } from "./stats";

export interface ShardingOptions {
  /** How many shards each sharded collection is split over. */
  readonly shards: number;
  /**
   * Shard keys by collection name, applied in every database the first time a command names that collection,
   * as if `shardCollection` had been run on it: for test runs whose databases are created on the fly.
   */
  readonly shardKeys?: Readonly<Record<string, Document>>;
}

/** The primary shard, which holds every unsharded collection (mongos routes their commands there). */
const PRIMARY_SHARD = 0;

/** Commands whose first field names a collection, and which are routed (and so counted) like a query of it. */
const ROUTED = new Set(["find", "aggregate", "count", "distinct", "insert", "update", "delete", "findAndModify", "findandmodify"]);

/**
 * A mongos in front of N simulated shards, in one process: it keeps each collection's shard key, computes for
 * every command the shards mongos 7.0 would send it to, counts them per command and per transaction, and
 * refuses what mongos refuses (a single write or upsert it cannot target, a unique index the shard key does
 * not prefix, a change of a shard key outside a transaction or retryable write). The data itself stays in one
 * store: only routing is simulated, so answers are those of one mongod.
 */
export class ShardingSimulation {
  /** Each sharded namespace's key. */
  private readonly keys = new Map<string, ShardKey>();
  private readonly autoKeys: ReadonlyMap<string, ShardKey>;
  readonly stats = new TargetingStats();

  constructor(private readonly options: ShardingOptions) {
    if (!Number.isInteger(options.shards) || options.shards < 1)
      throw new Error(`shards must be a whole number of at least 1, got ${options.shards}`);
    this.autoKeys = new Map(Object.entries(options.shardKeys ?? {}).map(([name, pattern]) => [name, parseShardKey(pattern)]));
  }

  /**
   * Runs before the command: answers the sharding commands itself, refuses what mongos would refuse (both as
   * the reply to send instead), and otherwise records where the command goes and returns undefined.
   */
  before(body: Document, db: string, storage: Storage): Document | undefined {
    const name = Object.keys(body)[0] ?? "";
    try {
      if (name === "shardCollection") return this.shardCollection(body, db, storage);
      if (name === "shardTargetingStats") return this.statsCommand(body, db);
      const collection = body[name];
      if (typeof collection === "string") this.applyAutoKey(db, collection, storage);
      if (name === "createIndexes" && typeof collection === "string") this.checkUniqueIndexes(body, `${db}.${collection}`);
      const refusal = this.refusalOf(name, body, db);
      if (refusal !== undefined) return refusal;
      this.record(name, body, db);
      return undefined;
    } catch (error) {
      if (error instanceof MongoCommandError) return error.toReply();
      throw error;
    }
  }

  /** Runs after the command: a cursor's getMores go to the shards its first batch came from. */
  after(body: Document, db: string, reply: Document): void {
    const name = Object.keys(body)[0] ?? "";
    const cursor = reply["cursor"];
    if (!ROUTED.has(name) || !isDocument(cursor)) return;
    const collection = body[name];
    if (typeof collection === "string") this.stats.openCursor(cursor["id"], `${db}.${collection}`, this.targetsOf(name, body, db));
  }

  private shardCollection(body: Document, db: string, storage: Storage): Document {
    if (db !== "admin") throw new MongoCommandError(ErrorCode.Unauthorized, "shardCollection may only be run against the admin database.");
    const namespace = body["shardCollection"];
    if (typeof namespace !== "string" || !/^[^.]+\..+$/.test(namespace)) {
      throw new MongoCommandError(ErrorCode.InvalidNamespace, `Invalid namespace specified '${String(namespace)}'`);
    }
    if (body["unique"] === true)
      throw new MongoCommandError(ErrorCode.NotImplemented, "offline server: shardCollection with unique: true is not supported");
    const key = parseShardKey(body["key"]);
    const existing = this.keys.get(namespace);
    if (existing !== undefined) {
      if (formatDocument(existing.pattern) === formatDocument(key.pattern)) return { collectionsharded: namespace, ok: 1 };
      throw new MongoCommandError(
        ErrorCode.AlreadyInitialized,
        `sharding already enabled for collection ${namespace} with options { key: ${formatDocument(existing.pattern)}, unique: false }`,
      );
    }
    const [database, ...rest] = namespace.split(".");
    for (const index of storage.existingCollection(database!, rest.join("."))?.indexes ?? []) {
      if (index.spec.unique && !prefixesUniqueIndex(key, index.spec.key)) {
        throw new MongoCommandError(
          ErrorCode.InvalidOptions,
          `can't shard collection '${namespace}' with unique index on ${formatDocument(index.spec.key)} and proposed shard key ` +
            `${formatDocument(key.pattern)}. Uniqueness can't be maintained unless shard key is a prefix`,
        );
      }
    }
    this.setKey(namespace, key, storage);
    return { collectionsharded: namespace, ok: 1 };
  }

  private statsCommand(body: Document, db: string): Document {
    if (db !== "admin")
      throw new MongoCommandError(ErrorCode.Unauthorized, "shardTargetingStats may only be run against the admin database.");
    if (body["reset"] === true) this.stats.reset();
    return { ok: 1, shards: this.options.shards, ...this.stats.report() };
  }

  private applyAutoKey(db: string, collection: string, storage: Storage): void {
    const key = this.autoKeys.get(collection);
    const namespace = `${db}.${collection}`;
    if (key !== undefined && !this.keys.has(namespace)) this.setKey(namespace, key, storage);
  }

  /**
   * Keeps the key, and records it in `config.collections` as mongos's config servers do, so that a tool may read
   * which collections are sharded, and on what key, the way it would on a cluster (`find` on that collection).
   */
  private setKey(namespace: string, key: ShardKey, storage: Storage): void {
    this.keys.set(namespace, key);
    storage.collection("config", "collections").insert({ _id: namespace, key: key.pattern, unique: false });
  }

  /** mongos checks a new unique index against the key on each shard: `_id`'s own index is exempt. */
  private checkUniqueIndexes(body: Document, namespace: string): void {
    const key = this.keys.get(namespace);
    const indexes = body["indexes"];
    if (key === undefined || !Array.isArray(indexes)) return;
    for (const index of indexes) {
      if (!isDocument(index) || index["unique"] !== true || !isDocument(index["key"])) continue;
      if (!prefixesUniqueIndex(key, index["key"])) {
        throw new MongoCommandError(
          ErrorCode.CannotCreateIndex,
          `cannot create unique index over ${formatDocument(index["key"])} with shard key pattern ${formatDocument(key.pattern)}`,
        );
      }
    }
  }

  /** mongos 7.0's refusals of writes on a sharded collection, in its words (chunk_manager_targeter.cpp, cluster_find_and_modify_cmd.cpp, update_stage.cpp). */
  private refusalOf(name: string, body: Document, db: string): Document | undefined {
    const key = this.keyOf(name, body, db);
    if (key === undefined) return undefined;
    const retryable = body["txnNumber"] !== undefined;
    if (name === "findAndModify" || name === "findandmodify") {
      const query = isDocument(body["query"]) ? body["query"] : {};
      if (!pinsWholeKey(key, query))
        throw new MongoCommandError(ErrorCode.ShardKeyNotFound, "Query for sharded findAndModify must contain the shard key");
      if (!retryable && changesKey(key, body["update"])) throw shardKeyChange();
      return undefined;
    }
    if (name === "update") return this.refusedUpdate(key, body, retryable);
    if (name === "delete") return this.refusedDelete(key, body);
    return undefined;
  }

  private refusedUpdate(key: ShardKey, body: Document, retryable: boolean): Document | undefined {
    const statements = Array.isArray(body["updates"]) ? (body["updates"] as Document[]) : [];
    for (const [index, statement] of statements.entries()) {
      const query = isDocument(statement["q"]) ? statement["q"] : {};
      const refusal = updateRefusal(key, statement, query, this.options.shards);
      if (refusal !== undefined) return writeErrorReply(index, refusal);
      if (!retryable && changesKey(key, statement["u"])) return writeErrorReply(index, shardKeyChange());
    }
    return undefined;
  }

  private refusedDelete(key: ShardKey, body: Document): Document | undefined {
    const statements = Array.isArray(body["deletes"]) ? (body["deletes"] as Document[]) : [];
    for (const [index, statement] of statements.entries()) {
      const query = isDocument(statement["q"]) ? statement["q"] : {};
      if (
        !isNumeric(statement["limit"]) ||
        toNumber(statement["limit"]) !== 1 ||
        targetsOf(key, query, this.options.shards).size <= 1 ||
        isExactIdQuery(query)
      )
        continue;
      return writeErrorReply(
        index,
        new MongoCommandError(
          ErrorCode.ShardKeyNotFound,
          "A single delete on a sharded collection must contain an exact match on _id (and have the collection default collation) " +
            `or contain the shard key (and have the simple collation). Delete request: ${formatDocument(statement)}, ` +
            `shard key pattern: ${formatDocument(key.pattern)}`,
        ),
      );
    }
    return undefined;
  }

  private record(name: string, body: Document, db: string): void {
    if (name === "getMore") {
      this.stats.getMore(body, db);
      return;
    }
    if (name === "commitTransaction" || name === "abortTransaction") {
      this.stats.endTransaction(body, name === "commitTransaction");
      return;
    }
    const collection = body[name];
    if (!ROUTED.has(name) || typeof collection !== "string") return;
    this.stats.command(name, `${db}.${collection}`, this.targetsOf(name, body, db), body);
  }

  /** The shards mongos sends the command to: by its filter (or documents) on a sharded collection, else the primary shard. */
  private targetsOf(name: string, body: Document, db: string): Targets {
    const key = this.keyOf(name, body, db);
    if (key === undefined) return new Set([PRIMARY_SHARD]);
    const shards = this.options.shards;
    const union = (filters: Document[]): Targets => new Set(filters.flatMap((filter) => [...targetsOf(key, filter, shards)]));
    switch (name) {
      case "find":
        return targetsOf(key, documentOr(body["filter"]), shards);
      case "count":
      case "distinct":
        return targetsOf(key, documentOr(body["query"]), shards);
      case "findAndModify":
      case "findandmodify":
        return targetsOf(key, documentOr(body["query"]), shards);
      case "insert":
        return new Set((body["documents"] as Document[]).map((doc) => shardOfDocument(key, doc, shards)));
      case "update":
        return union((body["updates"] as Document[]).map((statement) => documentOr(statement["q"])));
      case "delete":
        return union((body["deletes"] as Document[]).map((statement) => documentOr(statement["q"])));
      default:
        return this.pipelineTargets(key, body, db);
    }
  }

  /**
   * An aggregate goes where its leading `$match` sends it; a `$unionWith` or `$lookup` of a sharded collection
   * adds the shards that sub-pipeline reaches (a `$lookup`'s per-document queries: all of them).
   */
  private pipelineTargets(key: ShardKey, body: Document, db: string): Targets {
    const shards = this.options.shards;
    const pipeline = Array.isArray(body["pipeline"]) ? (body["pipeline"] as Document[]) : [];
    const targets = new Set(targetsOf(key, leadingMatch(pipeline), shards));
    for (const stage of pipeline) {
      const union = stage["$unionWith"];
      if (isDocument(union) && typeof union["coll"] === "string") {
        const unionKey = this.keys.get(`${db}.${union["coll"]}`);
        const sub = Array.isArray(union["pipeline"]) ? (union["pipeline"] as Document[]) : [];
        for (const shard of unionKey === undefined ? [PRIMARY_SHARD] : targetsOf(unionKey, leadingMatch(sub), shards)) targets.add(shard);
      }
      const lookup = stage["$lookup"];
      if (isDocument(lookup) && typeof lookup["from"] === "string") {
        const lookupKey = this.keys.get(`${db}.${lookup["from"]}`);
        for (const shard of lookupKey === undefined ? [PRIMARY_SHARD] : allShards(shards)) targets.add(shard);
      }
    }
    return targets;
  }

  private keyOf(name: string, body: Document, db: string): ShardKey | undefined {
    const collection = body[name];
    return typeof collection === "string" ? this.keys.get(`${db}.${collection}`) : undefined;
  }
}

/**
 * ShardKeyPattern::isUniqueIndexCompatible: a unique index is possible when the key's fields are a prefix of
 * its fields (by name: a hashed key prefixes an ascending index on the same field), or when it is `_id`'s.
 */
function prefixesUniqueIndex(key: ShardKey, indexKey: Document): boolean {
  const indexFields = Object.keys(indexKey);
  if (indexFields[0] === "_id") return true;
  return key.fields.every((field, at) => indexFields[at] === field);
}

/**
 * chunk_manager_targeter.cpp's targetUpdate: an upsert must pin the whole key; a single op-style update must
 * reach one shard or match `_id` exactly; a replacement that cannot be targeted by its query is targeted by
 * the key in the replacement, which this server does not model and so refuses loudly.
 */
function updateRefusal(key: ShardKey, statement: Document, query: Document, shards: number): MongoCommandError | undefined {
  if (statement["upsert"] === true) {
    return pinsWholeKey(key, query)
      ? undefined
      : new MongoCommandError(ErrorCode.ShardKeyNotFound, "Failed to target upsert by query :: could not extract exact shard key");
  }
  const reached = targetsOf(key, query, shards).size;
  if (reached <= 1 || statement["multi"] === true) return undefined;
  if (isDocument(statement["u"]) && !isOperatorUpdate(statement["u"])) {
    return new MongoCommandError(
      ErrorCode.NotImplemented,
      "offline server: targeting a replacement by the shard key in the replacement is not supported",
    );
  }
  if (isExactIdQuery(query)) return undefined;
  return new MongoCommandError(
    ErrorCode.InvalidOptions,
    "A {multi:false} update on a sharded collection must contain an exact match on _id (and have the collection default collation) " +
      `or target a single shard (and have the simple collation), but this update targeted ${reached} shards. ` +
      `Update request: ${formatDocument(statement)}, shard key pattern: ${formatDocument(key.pattern)}`,
  );
}

/**
 * Whether an update writes a field of the key. mongod refuses only when the key's value actually changes; this
 * server judges by the paths the update names (every operator but `$setOnInsert`, every stage of a pipeline
 * update), so it refuses more: an update that sets a key field to the value it had.
 */
function changesKey(key: ShardKey, update: unknown): boolean {
  if (Array.isArray(update)) {
    return update.some((stage) => isDocument(stage) && Object.values(stage).some((spec) => isDocument(spec) && namesKey(key, spec)));
  }
  if (!isDocument(update) || !isOperatorUpdate(update)) return false;
  return Object.entries(update).some(
    ([operator, fields]) => operator !== "$setOnInsert" && isDocument(fields) && namesKey(key, fields, operator === "$rename"),
  );
}

/** `renames`: the values are paths too (`$rename`'s targets). */
function namesKey(key: ShardKey, fields: Document, renames = false): boolean {
  return Object.entries(fields).some(
    ([path, value]) => touchesKey(key, path) || (renames && typeof value === "string" && touchesKey(key, value)),
  );
}

function isOperatorUpdate(update: Document): boolean {
  return Object.keys(update).some((field) => field.startsWith("$"));
}

function shardKeyChange(): MongoCommandError {
  return new MongoCommandError(
    ErrorCode.IllegalOperation,
    "Must run update to shard key field in a multi-statement transaction or with retryWrites: true.",
  );
}

/** mongos reports a write it cannot target as that statement's write error, not as the command's. */
function writeErrorReply(index: number, error: MongoCommandError): Document {
  return { ok: 1, n: 0, writeErrors: [error.toWriteError(index)] };
}

function documentOr(value: unknown): Document {
  return isDocument(value) ? value : {};
}

function leadingMatch(pipeline: Document[]): Document {
  const first = pipeline[0];
  return first !== undefined && isDocument(first["$match"]) ? first["$match"] : {};
}
