import type { Document } from "bson";
import { MongoCommandError, notSupported } from "./errors";
import { valuesAtPath } from "./paths";
import { canonicalKey, formatDocument, isNumeric, toNumber } from "./values";

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
  return Object.entries(key).map(([field, direction]) => `${field}_${isNumeric(direction) ? toNumber(direction) : String(direction)}`).join("_");
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
  const unique = raw["unique"] === true || isNumeric(raw["unique"]) && toNumber(raw["unique"]) !== 0;
  const ttl = "expireAfterSeconds" in raw ? { expireAfterSeconds: parseExpireAfterSeconds(raw["expireAfterSeconds"], key as Document) } : {};
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
    throw new MongoCommandError(197, `The field 'expireAfterSeconds' is not valid for an _id index specification. Specification: ${formatDocument(key)}`);
  }
  if (Object.keys(key).length > 1) {
    throw new MongoCommandError(67, `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${formatDocument(key)}`);
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

interface IndexEntry {
  /** Canonical keys of each prefix length of each key this document contributes. */
  readonly prefixKeys: ReadonlyArray<ReadonlySet<string>>;
  /** The typed values of each full key, by full canonical key (for duplicate key errors). */
  readonly fullKeys: ReadonlyMap<string, readonly unknown[]>;
}

/**
 * One index: hash maps from the canonical encoding of each key prefix to record ids. Equality on a
 * prefix of the fields is a lookup; uniqueness is a lookup of the full key.
 */
export class Index {
  readonly fields: readonly string[];
  private readonly maps: Array<Map<string, Set<number>>>;

  constructor(readonly spec: IndexSpec, private readonly namespace: string) {
    this.fields = Object.keys(spec.key);
    this.maps = this.fields.map(() => new Map());
  }

  private entryFor(doc: Document): IndexEntry | undefined {
    const perField = this.fields.map((field) => {
      const values = valuesAtPath(doc, field);
      return values.length === 0 ? [null] : values;
    });
    if (this.spec.sparse && this.fields.every((field) => valuesAtPath(doc, field).length === 0)) return undefined;
    const multi = perField.map((values, i) => [values.length, this.fields[i] ?? ""] as const).filter(([n]) => n > 1);
    if (multi.length > 1) {
      throw new MongoCommandError(171, `cannot index parallel arrays [${multi[1]?.[1]}] [${multi[0]?.[1]}]`);
    }
    const combos = perField.reduce<unknown[][]>((acc, values) => acc.flatMap((prefix) => values.map((v) => [...prefix, v])), [[]]);
    const prefixKeys = this.fields.map((_, length) => new Set(combos.map((combo) => combo.slice(0, length + 1).map(canonicalKey).join("|"))));
    const fullKeys = new Map(combos.map((combo) => [combo.map(canonicalKey).join("|"), combo] as const));
    return { prefixKeys, fullKeys };
  }

  /** Throws E11000 if `doc` would duplicate another record's key in this unique index. */
  checkUnique(doc: Document, self: number | undefined): void {
    if (!this.spec.unique) return;
    const entry = this.entryFor(doc);
    if (entry === undefined) return;
    const full = this.maps[this.fields.length - 1];
    for (const [key, values] of entry.fullKeys) {
      const holders = full?.get(key);
      if (holders && [...holders].some((id) => id !== self)) throw this.duplicateKeyError(values);
    }
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
    this.entryFor(doc);
  }

  add(id: number, doc: Document): void {
    this.entryFor(doc)?.prefixKeys.forEach((keys, i) => {
      const map = this.maps[i];
      for (const key of keys) {
        const holders = map?.get(key) ?? new Set<number>();
        holders.add(id);
        map?.set(key, holders);
      }
    });
  }

  remove(id: number, doc: Document): void {
    this.entryFor(doc)?.prefixKeys.forEach((keys, i) => {
      for (const key of keys) {
        const holders = this.maps[i]?.get(key);
        holders?.delete(id);
        if (holders?.size === 0) this.maps[i]?.delete(key);
      }
    });
  }

  /**
   * Record ids whose key starts with these equalities, or undefined when the equalities do not
   * cover a prefix of this index (the caller then scans).
   */
  lookup(equalities: ReadonlyMap<string, unknown>): { ids: ReadonlySet<number>; prefix: number } | undefined {
    let prefix = 0;
    while (prefix < this.fields.length && equalities.has(this.fields[prefix] ?? "")) prefix++;
    if (prefix === 0) return undefined;
    const key = this.fields.slice(0, prefix).map((field) => canonicalKey(equalities.get(field))).join("|");
    return { ids: this.maps[prefix - 1]?.get(key) ?? new Set(), prefix };
  }
}
