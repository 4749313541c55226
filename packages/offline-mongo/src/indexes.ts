import type { Document } from "bson";
import BTree from "sorted-btree";
import { MongoCommandError, notSupported } from "./errors";
import { compareKeyValues, documentKeys, keyComparator, keyTuples, type IndexKey, type KeyTuple } from "./keys";
import { valuesAtPath } from "./paths";
import { canonicalKey, formatDocument, isNumeric, toNumber, type TypedNumber } from "./values";

export interface IndexSpec {
  readonly name: string;
  /** The key pattern as the client sent it (field order and number types kept for listIndexes). */
  readonly key: Document;
  readonly unique: boolean;
  readonly sparse: boolean;
  /** Set on a TTL index: documents whose indexed date is older than this many seconds are swept away. */
  readonly expireAfterSeconds?: number;
}

/** Options mongod accepts on an index that this server implements; anything else is refused by name. */
const SUPPORTED_INDEX_OPTIONS = new Set(["key", "name", "unique", "sparse", "expireAfterSeconds", "v", "background"]);

/** mongod's upper bound for `expireAfterSeconds` (INT_MAX). */
const MAX_EXPIRE_AFTER_SECONDS = 2_147_483_647;

/** mongod's default name: `field_1_other_-1`. */
export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${isNumeric(direction) ? toNumber(direction) : String(direction)}`)
    .join("_");
}

export function parseIndexSpec(raw: Document): IndexSpec {
  for (const option of Object.keys(raw)) {
    if (!SUPPORTED_INDEX_OPTIONS.has(option)) throw notSupported(`the index option '${option}'`);
  }
  const key: unknown = raw["key"];
  if (typeof key !== "object" || key === null || Array.isArray(key) || Object.keys(key).length === 0) {
    throw new MongoCommandError(2, "The 'key' field of an index specification must be a non-empty object");
  }
  for (const [field, direction] of Object.entries(key as Document)) {
    if (!isNumeric(direction)) throw notSupported(`the index type '${String(direction)}' on field '${field}' (only ascending/descending)`);
    if (toNumber(direction) === 0) throw new MongoCommandError(67, `Values in the index key pattern can't be 0: ${field}`);
  }
  const name = raw["name"] ?? defaultIndexName(key as Document);
  if (typeof name !== "string") throw new MongoCommandError(14, "The 'name' field of an index specification must be a string");
  const unique = raw["unique"] === true || (isNumeric(raw["unique"]) && toNumber(raw["unique"]) !== 0);
  const ttl =
    "expireAfterSeconds" in raw ? { expireAfterSeconds: parseExpireAfterSeconds(raw["expireAfterSeconds"], key as Document) } : {};
  return { name, key: key as Document, unique, sparse: raw["sparse"] === true, ...ttl };
}

/** mongod's TTL checks (index_key_validate.cpp), with its CannotCreateIndex (67) code. */
function parseExpireAfterSeconds(value: unknown, key: Document): number {
  if (!isNumeric(value)) {
    throw new MongoCommandError(67, `TTL index 'expireAfterSeconds' option must be numeric, but received a type of '${typeof value}'`);
  }
  const seconds = toNumber(value);
  if (Number.isNaN(seconds) || seconds < 0) throw new MongoCommandError(67, "TTL index 'expireAfterSeconds' option cannot be less than 0");
  if (seconds > MAX_EXPIRE_AFTER_SECONDS) {
    throw new MongoCommandError(67, "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number");
  }
  if ("_id" in key) {
    throw new MongoCommandError(
      197,
      `The field 'expireAfterSeconds' is not valid for an _id index specification. Specification: ${formatDocument(key)}`,
    );
  }
  if (Object.keys(key).length > 1) {
    throw new MongoCommandError(
      67,
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${formatDocument(key)}`,
    );
  }
  return seconds;
}

/** The listIndexes shape: `{v: 2, key, name, unique?, sparse?, expireAfterSeconds?}`. */
export function describeIndex(spec: IndexSpec): Document {
  return {
    v: 2,
    key: spec.key,
    name: spec.name,
    ...(spec.unique && spec.name !== "_id_" ? { unique: true } : {}),
    ...(spec.sparse ? { sparse: true } : {}),
    ...(spec.expireAfterSeconds === undefined ? {} : { expireAfterSeconds: spec.expireAfterSeconds }),
  };
}

export function sameKeyPattern(a: Document, b: Document): boolean {
  return canonicalKey(a) === canonicalKey(b);
}

/**
 * One index: a B-tree of `[...key values, record id]` in mongod's key order (BSON type order, each
 * field ascending or descending), one entry per distinct key of each document (multikey: one per
 * array element), as mongod builds it.
 */
export class Index {
  readonly fields: readonly string[];
  readonly directions: readonly number[];
  /** Field positions some document holds an array along (sticky, as mongod's multikey paths). */
  readonly multikeyFields = new Set<number>();
  private tree: BTree<IndexKey, true>;

  constructor(
    readonly spec: IndexSpec,
    private readonly namespace: string,
  ) {
    this.fields = Object.keys(spec.key);
    this.directions = Object.values(spec.key).map((direction) => (toNumber(direction as TypedNumber) < 0 ? -1 : 1));
    this.tree = new BTree<IndexKey, true>(undefined, keyComparator(this.directions));
  }

  /** An independent copy that shares the tree's nodes until either side changes (the B-tree copies on write), for a transaction's snapshot. */
  clone(): Index {
    const copy = new Index(this.spec, this.namespace);
    copy.tree = this.tree.clone();
    this.multikeyFields.forEach((field) => copy.multikeyFields.add(field));
    return copy;
  }

  /** The keys `doc` holds in this index if it is unique (none otherwise), each with the record that holds it now, if any. */
  uniqueKeys(doc: Document): { key: string; holder: number | undefined }[] {
    if (!this.spec.unique) return [];
    return (this.keysOf(doc)?.tuples ?? []).map((tuple) => ({
      key: `${this.spec.name}|${tuple.canonical}`,
      holder: this.idOf(tuple.plain),
    }));
  }

  get isMultikey(): boolean {
    return this.multikeyFields.size > 0;
  }

  /** Number of keys (entries) in the index. */
  get size(): number {
    return this.tree.size;
  }

  /** The document's keys, or undefined when a sparse index skips it; refuses parallel arrays as mongod. */
  private keysOf(doc: Document): { tuples: KeyTuple[]; arrayFields: number[] } | undefined {
    const { perField, arrayFields } = documentKeys(doc, this.fields);
    if (this.spec.sparse && this.fields.every((field) => valuesAtPath(doc, field).length === 0)) return undefined;
    const multi = perField.map((values, i) => [values.length, this.fields[i] ?? ""] as const).filter(([n]) => n > 1);
    if (multi.length > 1) {
      throw new MongoCommandError(171, `cannot index parallel arrays [${multi[1]?.[1]}] [${multi[0]?.[1]}]`);
    }
    return { tuples: keyTuples(perField), arrayFields };
  }

  /** Throws E11000 if `doc` would duplicate another record's key in this unique index. */
  checkUnique(doc: Document, self: number | undefined): void {
    if (!this.spec.unique) return;
    for (const tuple of this.keysOf(doc)?.tuples ?? []) {
      const holder = this.holderOtherThan(tuple.plain, self);
      if (holder !== undefined) throw this.duplicateKeyError(tuple.typed);
    }
  }

  /** A record holding exactly this key (plain values), if any. */
  idOf(values: readonly unknown[]): number | undefined {
    return this.holderOtherThan(values, undefined);
  }

  /** A record id other than `self` holding exactly this key, if any. */
  private holderOtherThan(values: readonly unknown[], self: number | undefined): number | undefined {
    let entry = this.tree.getPairOrNextHigher([...values, -Infinity]);
    while (entry !== undefined && this.sameValues(entry[0], values)) {
      const id = entry[0][this.fields.length] as number;
      if (id !== self) return id;
      entry = this.tree.nextHigherPair(entry[0]);
    }
    return undefined;
  }

  private sameValues(key: IndexKey, values: readonly unknown[]): boolean {
    return values.every((value, i) => compareKeyValues(key[i], value) === 0);
  }

  private duplicateKeyError(values: readonly unknown[]): MongoCommandError {
    const keyValue: Document = {};
    this.fields.forEach((field, i) => (keyValue[field] = values[i] ?? null));
    return new MongoCommandError(
      11000,
      `E11000 duplicate key error collection: ${this.namespace} index: ${this.spec.name} dup key: ${formatDocument(keyValue)}`,
      { keyPattern: this.spec.key, keyValue },
    );
  }

  /** Validates that the document can be indexed at all (parallel arrays) without adding it. */
  validate(doc: Document): void {
    this.keysOf(doc);
  }

  add(id: number, doc: Document): void {
    const keys = this.keysOf(doc);
    if (keys === undefined) return;
    keys.arrayFields.forEach((field) => this.multikeyFields.add(field));
    for (const tuple of keys.tuples) this.tree.set([...tuple.plain, id], true);
  }

  remove(id: number, doc: Document): void {
    for (const tuple of this.keysOf(doc)?.tuples ?? []) this.tree.delete([...tuple.plain, id]);
  }

  /**
   * Moves a record from its old document's keys to its new one's, touching only the keys that differ,
   * as mongod does: appending one element to a 1,000-element array inserts one key, not 1,000.
   */
  update(id: number, before: Document, after: Document): void {
    const oldTuples = this.keysOf(before)?.tuples ?? [];
    const newKeys = this.keysOf(after);
    const hadKey = new Set(oldTuples.map((tuple) => tuple.canonical));
    const hasKey = new Set(newKeys?.tuples.map((tuple) => tuple.canonical));
    for (const tuple of oldTuples) if (!hasKey.has(tuple.canonical)) this.tree.delete([...tuple.plain, id]);
    if (newKeys === undefined) return;
    newKeys.arrayFields.forEach((field) => this.multikeyFields.add(field));
    for (const tuple of newKeys.tuples) if (!hadKey.has(tuple.canonical)) this.tree.set([...tuple.plain, id], true);
  }

  /** The first entry at or after `key` in the scan's direction (forward: ascending tree order). */
  seek(key: IndexKey, forward: boolean): IndexKey | undefined {
    return (forward ? this.tree.getPairOrNextHigher(key) : this.tree.getPairOrNextLower(key))?.[0];
  }

  /** The entry after `key` in the scan's direction. */
  next(key: IndexKey, forward: boolean): IndexKey | undefined {
    return (forward ? this.tree.nextHigherPair(key) : this.tree.nextLowerPair(key))?.[0];
  }
}
