import type { Document } from "bson";
import BTree from "sorted-btree";
import { bulkLoad } from "sorted-btree/extended/bulkLoad";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";
import {
  appendedKeyTuples,
  compareKeyValues,
  documentKeys,
  keyComparator,
  keyEntries,
  keyTuples,
  type IndexKey,
  type KeyTuple,
} from "./keys";
import { valuesAtPath } from "../values/paths";
import type { StorageMeter, StoredDocument } from "./records";
import { canonicalKey, formatDocument, isNumeric, sameStoredValue, toNumber, type TypedNumber } from "../values/values";

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
    throw new MongoCommandError(ErrorCode.BadValue, "The 'key' field of an index specification must be a non-empty object");
  }
  for (const [field, direction] of Object.entries(key as Document)) {
    if (!isNumeric(direction)) throw notSupported(`the index type '${String(direction)}' on field '${field}' (only ascending/descending)`);
    if (toNumber(direction) === 0)
      throw new MongoCommandError(ErrorCode.CannotCreateIndex, `Values in the index key pattern can't be 0: ${field}`);
  }
  const name = raw["name"] ?? defaultIndexName(key as Document);
  if (typeof name !== "string")
    throw new MongoCommandError(ErrorCode.TypeMismatch, "The 'name' field of an index specification must be a string");
  const unique = raw["unique"] === true || (isNumeric(raw["unique"]) && toNumber(raw["unique"]) !== 0);
  const ttl =
    "expireAfterSeconds" in raw ? { expireAfterSeconds: parseExpireAfterSeconds(raw["expireAfterSeconds"], key as Document) } : {};
  return { name, key: key as Document, unique, sparse: raw["sparse"] === true, ...ttl };
}

/** mongod's TTL checks (index_key_validate.cpp), with its CannotCreateIndex (67) code. */
function parseExpireAfterSeconds(value: unknown, key: Document): number {
  if (!isNumeric(value)) {
    throw new MongoCommandError(
      ErrorCode.CannotCreateIndex,
      `TTL index 'expireAfterSeconds' option must be numeric, but received a type of '${typeof value}'`,
    );
  }
  const seconds = toNumber(value);
  if (Number.isNaN(seconds) || seconds < 0)
    throw new MongoCommandError(ErrorCode.CannotCreateIndex, "TTL index 'expireAfterSeconds' option cannot be less than 0");
  if (seconds > MAX_EXPIRE_AFTER_SECONDS) {
    throw new MongoCommandError(
      ErrorCode.CannotCreateIndex,
      "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number",
    );
  }
  if ("_id" in key) {
    throw new MongoCommandError(
      ErrorCode.InvalidIndexSpecificationOption,
      `The field 'expireAfterSeconds' is not valid for an _id index specification. Specification: ${formatDocument(key)}`,
    );
  }
  if (Object.keys(key).length > 1) {
    throw new MongoCommandError(
      ErrorCode.CannotCreateIndex,
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

/** The keys one write takes out of an index and puts in: for an update, only those that differ. */
export interface KeyChange {
  readonly removed: readonly KeyTuple[];
  readonly added: readonly KeyTuple[];
  /** Field positions the new document holds an array along: they make the index multikey. */
  readonly arrayFields: readonly number[];
}

const NO_CHANGE: KeyChange = { removed: [], added: [], arrayFields: [] };

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
  /** The top-level fields its key paths start from: an update that leaves them all as they were changes none of its keys. */
  private readonly topFields: readonly string[];
  /** Keys only: with every value undefined the tree allocates no values (sorted-btree's documented saving). */
  private tree: BTree<IndexKey, undefined>;

  constructor(
    readonly spec: IndexSpec,
    private readonly namespace: string,
    private readonly meter: StorageMeter,
  ) {
    this.fields = Object.keys(spec.key);
    this.topFields = [...new Set(this.fields.map((field) => field.split(".")[0] ?? field))];
    this.directions = Object.values(spec.key).map((direction) => (toNumber(direction as TypedNumber) < 0 ? -1 : 1));
    this.tree = new BTree<IndexKey, undefined>(undefined, keyComparator(this.directions));
  }

  /**
   * An independent copy that shares the tree's nodes until either side changes (the B-tree copies on write), for
   * a transaction's snapshot, or (`namespace`) for its collection under a new name.
   */
  clone(namespace = this.namespace): Index {
    const copy = new Index(this.spec, namespace, this.meter);
    copy.tree = this.tree.clone();
    this.multikeyFields.forEach((field) => copy.multikeyFields.add(field));
    return copy;
  }

  /** The lock keys of what `change` does to this index if it is unique (none otherwise): one per key removed or added. */
  uniqueKeysOf(change: KeyChange): string[] {
    if (!this.spec.unique) return [];
    return [...change.removed, ...change.added].map((tuple) => `${this.spec.name}|${tuple.canonical}`);
  }

  /** The records holding, in this index if it is unique, the keys `change` adds. */
  holdersOfAdded(change: KeyChange): number[] {
    if (!this.spec.unique) return [];
    return change.added.flatMap((tuple) => this.idOf(tuple.plain) ?? []);
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
    const values = this.fieldValuesOf(doc);
    return values && { tuples: keyTuples(values.perField), arrayFields: values.arrayFields };
  }

  /** The document's values of each field, or undefined when a sparse index skips it; refuses parallel arrays as mongod. */
  private fieldValuesOf(doc: Document): { perField: unknown[][]; arrayFields: number[] } | undefined {
    const { perField, arrayFields } = documentKeys(doc, this.fields);
    if (this.spec.sparse && this.fields.every((field) => valuesAtPath(doc, field).length === 0)) return undefined;
    const multi = perField.map((values, i) => [values.length, this.fields[i] ?? ""] as const).filter(([n]) => n > 1);
    if (multi.length > 1) {
      throw new MongoCommandError(
        ErrorCode.CannotIndexParallelArrays,
        `cannot index parallel arrays [${multi[1]?.[1]}] [${multi[0]?.[1]}]`,
      );
    }
    return { perField, arrayFields };
  }

  /** Throws E11000 if a key `change` adds is another record's in this unique index. */
  checkUnique(change: KeyChange): void {
    if (!this.spec.unique) return;
    for (const tuple of change.added) if (this.idOf(tuple.plain) !== undefined) throw this.duplicateKeyError(tuple.typed);
  }

  /** A record holding exactly this key (plain values), if any. */
  idOf(values: readonly unknown[]): number | undefined {
    const entry = this.tree.getPairOrNextHigher([...values, -Infinity]);
    return entry !== undefined && this.sameValues(entry[0], values) ? (entry[0][this.fields.length] as number) : undefined;
  }

  private sameValues(key: IndexKey, values: readonly unknown[]): boolean {
    return values.every((value, i) => compareKeyValues(key[i], value) === 0);
  }

  private duplicateKeyError(values: readonly unknown[]): MongoCommandError {
    const keyValue: Document = {};
    this.fields.forEach((field, i) => (keyValue[field] = values[i] ?? null));
    return new MongoCommandError(
      ErrorCode.DuplicateKey,
      `E11000 duplicate key error collection: ${this.namespace} index: ${this.spec.name} dup key: ${formatDocument(keyValue)}`,
      { keyPattern: this.spec.key, keyValue },
    );
  }

  /**
   * The keys a write of `before` into `after` (either missing for an insert or a delete) takes out and puts in,
   * touching only those that differ, as mongod does: appending one element to a 1,000-element array adds one
   * key, not 1,000, and an update that leaves the indexed fields as they were changes none (their keys are not
   * even computed). Refuses a new document that cannot be indexed (parallel arrays).
   */
  keyChange(before: Document | undefined, after: Document | undefined): KeyChange {
    if (before !== undefined && after !== undefined) {
      if (this.readsSameFields(before, after)) return NO_CHANGE;
      const appended = this.appendedKeys(before, after);
      if (appended !== undefined) return appended;
    }
    const old = before === undefined ? [] : (this.keysOf(before)?.tuples ?? []);
    const next = after === undefined ? undefined : this.keysOf(after);
    if (old.length === 0) return { removed: [], added: next?.tuples ?? [], arrayFields: next?.arrayFields ?? [] };
    const hadKey = new Set(old.map((tuple) => tuple.canonical));
    const hasKey = new Set(next?.tuples.map((tuple) => tuple.canonical));
    return {
      removed: old.filter((tuple) => !hasKey.has(tuple.canonical)),
      added: next?.tuples.filter((tuple) => !hadKey.has(tuple.canonical)) ?? [],
      arrayFields: next?.arrayFields ?? [],
    };
  }

  /** The change of an update that only appends to one field's values (see `appendedKeyTuples`), or undefined. */
  private appendedKeys(before: Document, after: Document): KeyChange | undefined {
    const old = this.fieldValuesOf(before);
    const next = old && this.fieldValuesOf(after);
    const added = next && appendedKeyTuples(old.perField, next.perField);
    return added && { removed: [], added, arrayFields: next.arrayFields };
  }

  private readsSameFields(before: Document, after: Document): boolean {
    return this.topFields.every((field) => field in before === field in after && sameStoredValue(before[field], after[field]));
  }

  /**
   * Applies a change `keyChange` computed for record `id`, counting the keys it deletes and inserts. Each entry
   * is built by `concat`, which sizes its array exactly: a spread (`[...plain, id]`) leaves room to grow, 216
   * bytes an entry of three values instead of 80, and a catalog's search indexes hold about 80 entries a book.
   */
  apply(id: number, change: KeyChange): void {
    for (const tuple of change.removed) if (this.tree.delete(tuple.plain.concat(id))) this.meter.keysDeleted += 1;
    change.arrayFields.forEach((field) => this.multikeyFields.add(field));
    for (const tuple of change.added) if (this.tree.set(tuple.plain.concat(id), undefined)) this.meter.keysInserted += 1;
  }

  /**
   * Builds this new, empty index over a collection's records as mongod builds one on a populated collection:
   * every record's keys generated in natural order, sorted once, and the B-tree loaded bottom-up from the sorted
   * keys (sorted-btree's `bulkLoad`), instead of inserted key by key, each insert searching the tree and splitting its
   * nodes. The same entries, multikey paths and keys-inserted count result; a build that must fail (a document
   * that cannot be indexed, a duplicate in a unique index) is redone key by key, which fails as inserts do, at the
   * first record in natural order that cannot be added.
   */
  build(records: Iterable<StoredDocument>): void {
    const sorted = this.sortedKeysOf(records);
    if (sorted === undefined) {
      for (const record of records) this.insertRecord(record);
      return;
    }
    this.tree = bulkLoad<IndexKey, undefined>(
      sorted,
      new Array<undefined>(sorted.length),
      this.tree.maxNodeSize,
      keyComparator(this.directions),
    );
    this.meter.keysInserted += sorted.length;
  }

  /** Every record's entries in tree order, or undefined when one cannot be indexed or two hold one key in a unique index. */
  private sortedKeysOf(records: Iterable<StoredDocument>): IndexKey[] | undefined {
    const entries: IndexKey[] = [];
    const arrayFields = new Set<number>();
    for (const record of records) {
      let values: ReturnType<Index["fieldValuesOf"]>;
      try {
        values = this.fieldValuesOf(record.doc);
      } catch {
        return undefined;
      }
      if (values === undefined) continue;
      values.arrayFields.forEach((field) => arrayFields.add(field));
      for (const entry of keyEntries(values.perField, record.id)) entries.push(entry);
    }
    const compare = keyComparator(this.directions);
    entries.sort(compare);
    const last = this.fields.length;
    if (this.spec.unique && entries.some((entry, i) => i > 0 && this.sameValues(entries[i - 1] as IndexKey, entry.slice(0, last))))
      return undefined;
    arrayFields.forEach((field) => this.multikeyFields.add(field));
    return entries;
  }

  /** Adds one record's keys, as an insert does: refuses a document that cannot be indexed, and a duplicate key. */
  private insertRecord(record: StoredDocument): void {
    const change = this.keyChange(undefined, record.doc);
    this.checkUnique(change);
    this.apply(record.id, change);
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
