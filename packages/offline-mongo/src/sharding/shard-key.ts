import type { Document } from "bson";
import { createHash } from "node:crypto";
import { ErrorCode, MongoCommandError } from "../errors";
import { valueAt } from "../values/paths";
import { canonicalKey, formatDocument, isDocument, isNumeric, toNumber } from "../values/values";

/** One sharded collection's key: its fields in order, and whether the first is hashed. */
export interface ShardKey {
  /** The pattern as `shardCollection` was given it, for messages and idempotency. */
  readonly pattern: Document;
  readonly fields: readonly string[];
  readonly hashed: boolean;
}

/** A command's shards: the ones it names, or every shard when its filter pins no value of the key's first field. */
export type Targets = ReadonlySet<number>;

const TWO_TO_THE_64 = 1n << 64n;
const TWO_TO_THE_63 = 1n << 63n;

/**
 * Parses a `shardCollection` key as mongos checks it: a non-empty document of `1` or "hashed" fields, at
 * most one hashed. The stand-in routes by the first field only (see `shardOf`), so a hashed field elsewhere is refused.
 */
export function parseShardKey(raw: unknown): ShardKey {
  if (!isDocument(raw) || Object.keys(raw).length === 0) {
    throw new MongoCommandError(ErrorCode.InvalidOptions, "The shard key pattern must be a non-empty document");
  }
  const entries = Object.entries(raw);
  for (const [field, value] of entries) {
    if (value !== "hashed" && !(isNumeric(value) && toNumber(value) === 1)) {
      throw new MongoCommandError(
        ErrorCode.InvalidOptions,
        `Shard key ${formatDocument(raw)} is not valid: ${field} must be 1 or "hashed"`,
      );
    }
  }
  const hashedAt = entries.flatMap(([, value], at) => (value === "hashed" ? [at] : []));
  if (hashedAt.length > 1)
    throw new MongoCommandError(ErrorCode.InvalidOptions, `Shard key ${formatDocument(raw)} is not valid: at most one field may be hashed`);
  if (hashedAt.length === 1 && hashedAt[0] !== 0) {
    throw new MongoCommandError(
      ErrorCode.NotImplemented,
      "offline server: a shard key whose hashed field is not its first is not supported",
    );
  }
  return { pattern: raw, fields: entries.map(([field]) => field), hashed: hashedAt.length === 1 };
}

/**
 * The shard a value of the key's first field lives on, out of `shardCount`. Hashed keys: the hash space split
 * evenly, one range per shard, as `shardCollection` pre-splits an empty collection (the hash is the stand-in's
 * own, not mongod's md5 of the BSON element: which shard a value lands on differs, how many shards a command
 * reaches does not). Ranged keys: the stand-in models every value of the first field as a chunk of its own,
 * placed by the same hash, so chunks split only between values of that field (mongod may also split between
 * values of later fields, which would only spread one first-field value over more shards).
 */
export function shardOf(value: unknown, shardCount: number): number {
  const digest = createHash("md5")
    .update(canonicalKey(value ?? null))
    .digest();
  const offset = digest.readBigInt64LE(0) + TWO_TO_THE_63;
  return Number((offset * BigInt(shardCount)) / TWO_TO_THE_64);
}

/** The shards a query on this key reaches: those of the first field's pinned values, else all of them. */
export function targetsOf(key: ShardKey, filter: Document, shardCount: number): Targets {
  const values = pinnedValues(filter, key.fields[0]!);
  if (values === undefined) return allShards(shardCount);
  return new Set(values.map((value) => shardOf(value, shardCount)));
}

export function allShards(shardCount: number): Targets {
  return new Set(Array.from({ length: shardCount }, (_, shard) => shard));
}

/** True when the filter pins one value of every field of the key, as mongos needs to target an upsert or findAndModify. */
export function pinsWholeKey(key: ShardKey, filter: Document): boolean {
  return key.fields.every((field) => pinnedValues(filter, field)?.length === 1);
}

/** True when the filter is an exact match on `_id`, which lets a single update or delete be broadcast. */
export function isExactIdQuery(filter: Document): boolean {
  return pinnedValues(filter, "_id")?.length === 1;
}

/** The key's value in a document to be inserted: a missing field counts as null, as mongos routes it. */
export function shardOfDocument(key: ShardKey, doc: Document, shardCount: number): number {
  return shardOf(valueAt(doc, key.fields[0]!.split(".")), shardCount);
}

/** Whether a path an update writes is, contains or lies within one of the key's fields. */
export function touchesKey(key: ShardKey, path: string): boolean {
  return key.fields.some((field) => field === path || field.startsWith(`${path}.`) || path.startsWith(`${field}.`));
}

/**
 * The values a filter allows at `path` by equality, `$eq` or `$in`, directly, through an equality on a parent
 * document (`{_id: {book_id: 1, …}}` pins `_id.book_id`, as mongos's equality extraction finds it), in a
 * `$and`, or in every branch of an `$or` (mongos targets the union of the branches' bounds); undefined when it
 * allows any value there.
 */
function pinnedValues(filter: Document, path: string): unknown[] | undefined {
  const direct = filter[path];
  if (direct !== undefined) return valuesOfCondition(direct);
  const segments = path.split(".");
  for (let end = segments.length - 1; end > 0; end--) {
    const parent = filter[segments.slice(0, end).join(".")];
    if (isDocument(parent) && !isOperatorDocument(parent)) {
      const value = valueAt(parent, segments.slice(end));
      return value === undefined ? undefined : [value];
    }
  }
  const conjuncts = filter["$and"];
  if (Array.isArray(conjuncts)) {
    for (const conjunct of conjuncts) {
      const values = isDocument(conjunct) ? pinnedValues(conjunct, path) : undefined;
      if (values !== undefined) return values;
    }
  }
  const branches = filter["$or"];
  if (Array.isArray(branches) && branches.length > 0) {
    const values = branches.map((branch) => (isDocument(branch) ? pinnedValues(branch, path) : undefined));
    if (values.every((branch) => branch !== undefined)) return values.flat();
  }
  return undefined;
}

function valuesOfCondition(condition: unknown): unknown[] | undefined {
  if (Array.isArray(condition) || condition instanceof RegExp) return undefined;
  if (!isDocument(condition) || !isOperatorDocument(condition)) return [condition];
  if ("$eq" in condition) return valuesOfCondition(condition["$eq"]);
  const members = condition["$in"];
  if (Array.isArray(members) && members.every((member) => !Array.isArray(member) && !(member instanceof RegExp))) return members;
  return undefined;
}

function isOperatorDocument(doc: Document): boolean {
  const keys = Object.keys(doc);
  return keys.length > 0 && keys.every((key) => key.startsWith("$"));
}
