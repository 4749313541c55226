import type { Document } from "bson";
import { compareBytes, compareValues, typeRank } from "../values/compare";
import { valueAt, valuesAtPath } from "../values/paths";
import { canonicalKey, sameStoredValue, toPlain } from "../values/values";

/**
 * A value that sorts just before (`after: false`) or just after (`after: true`) every value of one
 * BSON type rank; rank ±Infinity are MinKey and MaxKey. Index bounds use these where mongod writes
 * the smallest or largest value of a type (its bounds are "type bracketed").
 */
export class KeyBound {
  constructor(
    readonly rank: number,
    readonly after: boolean,
  ) {}
}

export const MIN_KEY = new KeyBound(-Infinity, false);
export const MAX_KEY = new KeyBound(Infinity, true);

function rankOf(value: unknown): number {
  return value instanceof KeyBound ? value.rank : typeRank(value);
}

/** mongod's index key order of two plain values, either of which may be a {@link KeyBound}. */
export function compareKeyValues(a: unknown, b: unknown): number {
  // Index maintenance compares keys tens of times per key inserted: the commonest kinds of key go straight to their order.
  if (typeof a === "string" && typeof b === "string") return a === b ? 0 : compareBytes(a, b);
  if (typeof a === "number" && typeof b === "number" && !Number.isNaN(a) && !Number.isNaN(b)) return a < b ? -1 : a > b ? 1 : 0;
  if (!(a instanceof KeyBound) && !(b instanceof KeyBound)) return compareValues(a, b);
  const byRank = rankOf(a) - rankOf(b);
  if (byRank !== 0 && !Number.isNaN(byRank)) return byRank;
  const side = (value: unknown): number => (value instanceof KeyBound ? (value.after ? 1 : -1) : 0);
  return side(a) - side(b);
}

/** One entry of an index's B-tree: the key's plain values, then the record id that makes it unique. */
export type IndexKey = readonly unknown[];

/** The tree's order: each field by mongod's key order times its direction, then the record id. */
export function keyComparator(directions: readonly number[]): (a: IndexKey, b: IndexKey) => number {
  const last = directions.length;
  return (a, b) => {
    for (let i = 0; i < last; i++) {
      const order = compareKeyValues(a[i], b[i]);
      if (order !== 0) return order * (directions[i] ?? 1);
    }
    return (a[last] as number) - (b[last] as number);
  };
}

/**
 * mongod's keys for a document: a missing field is null, an empty array is undefined, an array
 * contributes one key per distinct element; two array fields in one compound key are refused by the caller.
 */
export function documentKeys(doc: Document, fields: readonly string[]): { perField: unknown[][]; arrayFields: number[] } {
  /** Fields (by position) along whose path the document holds an array: they make the index multikey. */
  const arrayFields: number[] = [];
  const perField = fields.map((field, position) => {
    const values = valuesAtPath(doc, field);
    if (crossesArray(doc, field)) arrayFields.push(position);
    if (values.length === 0) return [endsInEmptyArray(doc, field) ? undefined : null];
    return values;
  });
  return { perField, arrayFields };
}

/** One key of a document: its plain values (for ordering) and the values as stored (for error messages). */
export interface KeyTuple {
  readonly plain: readonly unknown[];
  readonly typed: readonly unknown[];
  /** Equal for two keys exactly when mongod's key equality holds (1, 1.0 and Long 1 alike). */
  readonly canonical: string;
}

/**
 * Every combination of one value per field, deduplicated by mongod's key equality (of two equal values, the
 * last one's type is kept). Each field's values are deduplicated and converted once, not once per combination:
 * a book's 30 search words would otherwise convert its title and id 30 times per index.
 */
export function keyTuples(perField: readonly unknown[][]): KeyTuple[] {
  const tuples: KeyTuple[] = [];
  for (const combination of combinations(perField.map(distinctKeyValues))) {
    tuples.push({
      typed: combination.map(({ typed }) => typed),
      plain: combination.map(({ plain }) => plain),
      canonical: combination.map(({ canonical }) => canonical).join("|"),
    });
  }
  return tuples;
}

/**
 * The keys a write adds when it changes an index's values (`documentKeys`'s `perField`) only by appending strings to
 * one field's (a buyer `$push`ed onto an indexed array), worked out from the appended values alone: a document's keys
 * follow from its values, so the new document holds every key of the old one and, besides, each combination that takes
 * an appended string the field did not hold. That is the same set, in the same order, that `keyTuples` of both
 * documents and their difference give, without turning every element of the array into a key twice. Undefined when the
 * values differ in any other way (a value changed or removed, a non-string appended, two fields grown), for the caller
 * to diff the whole keys.
 */
export function appendedKeyTuples(before: readonly unknown[][], after: readonly unknown[][]): KeyTuple[] | undefined {
  if (before.length !== after.length) return undefined;
  let grown = -1;
  for (let field = 0; field < after.length; field++) {
    const old = before[field] ?? [];
    const next = after[field] ?? [];
    if (next.length < old.length || old.some((value, i) => !sameStoredValue(value, next[i]))) return undefined;
    if (next.length > old.length) {
      if (grown >= 0) return undefined;
      grown = field;
    }
  }
  if (grown < 0) return [];
  const old = before[grown] ?? [];
  const appended = (after[grown] ?? []).slice(old.length);
  // A string's key equals only the same string's, so `includes` finds exactly the appended values already keyed.
  if (!appended.every((value) => typeof value === "string")) return undefined;
  const fresh = appended.filter((value) => !old.includes(value));
  return keyTuples(after.map((values, field) => (field === grown ? fresh : values)));
}

/**
 * The entries a document's keys make in an index for record `id`: the combinations `keyTuples` makes, in plain values
 * and then the id. An index build holds nothing else, so it is spared the typed values and canonical strings a write's
 * diff needs (four of every five objects a key cost to build); each entry is sized exactly.
 */
export function keyEntries(perField: readonly unknown[][], id: number): IndexKey[] {
  const entries: IndexKey[] = [];
  // `concat` copies the combination into one packed array of exactly the entry's size.
  for (const combination of combinations(perField.map((values) => distinctKeyValues(values).map(({ plain }) => plain)))) {
    entries.push(combination.concat(id));
  }
  return entries;
}

/**
 * The cartesian product of one value per field, the last field varying fastest (the order mongod's keys of a
 * document take). Each combination is yielded in one array, refilled in place for the next one: a caller copies
 * what it keeps, so that an index build allocates nothing but the entries it stores.
 */
function* combinations<T>(perField: readonly (readonly T[])[]): Generator<readonly T[]> {
  const count = perField.reduce((product, values) => product * values.length, 1);
  // Filled in field order, so that it stays a packed array.
  const combination: T[] = [];
  for (let index = 0; index < count; index++) {
    let divisor = count;
    perField.forEach((values, field) => {
      divisor /= values.length;
      combination[field] = values[Math.floor(index / divisor) % values.length] as T;
    });
    yield combination;
  }
}

/** One field's distinct values, in the order each first appears. */
function distinctKeyValues(values: readonly unknown[]): { typed: unknown; plain: unknown; canonical: string }[] {
  const distinct = new Map<string, unknown>();
  for (const value of values) distinct.set(canonicalKeyOrUndefined(value), value);
  return [...distinct].map(([canonical, typed]) => ({ typed, plain: toPlain(typed), canonical }));
}

function canonicalKeyOrUndefined(value: unknown): string {
  return value === undefined ? "u" : canonicalKey(value);
}

function crossesArray(doc: Document, field: string): boolean {
  const segments = field.split(".");
  let current: unknown = doc;
  for (const segment of segments) {
    if (Array.isArray(current)) return true;
    current = typeof current === "object" && current !== null ? (current as Document)[segment] : undefined;
  }
  return Array.isArray(current);
}

function endsInEmptyArray(doc: Document, field: string): boolean {
  const value = valueAt(doc, field.split("."));
  return Array.isArray(value) && value.length === 0;
}
