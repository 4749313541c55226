import { ObjectId, type Document } from "bson";
import { typeRank } from "../values/compare";
import { compareKeyValues, KeyBound, MAX_KEY, MIN_KEY } from "./keys";
import { isDocument, toPlain } from "../values/values";

/** A range of one field's key values, in ascending key order. */
export interface Interval {
  readonly low: unknown;
  readonly lowInclusive: boolean;
  readonly high: unknown;
  readonly highInclusive: boolean;
}

/** The intervals of one field: sorted ascending, disjoint. An empty list matches nothing. */
export type FieldBounds = readonly Interval[];

export const ALL_VALUES: FieldBounds = [{ low: MIN_KEY, lowInclusive: true, high: MAX_KEY, highInclusive: true }];

function point(value: unknown): Interval {
  return { low: value, lowInclusive: true, high: value, highInclusive: true };
}

export function isPoint(bounds: FieldBounds): boolean {
  const [only] = bounds;
  return (
    bounds.length === 1 && only !== undefined && only.lowInclusive && only.highInclusive && compareKeyValues(only.low, only.high) === 0
  );
}

export function isAllValues(bounds: FieldBounds): boolean {
  const [only] = bounds;
  return bounds.length === 1 && only?.low === MIN_KEY && only.high === MAX_KEY;
}

/** Sorts and merges overlapping intervals into a valid {@link FieldBounds}. */
function normalize(intervals: readonly Interval[]): FieldBounds {
  const sorted = [...intervals].sort((a, b) => compareKeyValues(a.low, b.low) || Number(b.lowInclusive) - Number(a.lowInclusive));
  const out: Interval[] = [];
  for (const interval of sorted) {
    const last = out[out.length - 1];
    const touching =
      last !== undefined &&
      (compareKeyValues(interval.low, last.high) < 0 ||
        (compareKeyValues(interval.low, last.high) === 0 && (interval.lowInclusive || last.highInclusive)));
    if (last === undefined || !touching) {
      out.push(interval);
      continue;
    }
    const order = compareKeyValues(interval.high, last.high);
    if (order > 0 || (order === 0 && interval.highInclusive))
      out[out.length - 1] = { ...last, high: interval.high, highInclusive: interval.highInclusive };
  }
  return out;
}

function intersectOne(a: Interval, b: Interval): Interval | undefined {
  const lowOrder = compareKeyValues(a.low, b.low);
  const low = lowOrder > 0 ? a : lowOrder < 0 ? b : { ...a, lowInclusive: a.lowInclusive && b.lowInclusive };
  const highOrder = compareKeyValues(a.high, b.high);
  const high = highOrder < 0 ? a : highOrder > 0 ? b : { ...a, highInclusive: a.highInclusive && b.highInclusive };
  const order = compareKeyValues(low.low, high.high);
  if (order > 0 || (order === 0 && !(low.lowInclusive && high.highInclusive))) return undefined;
  return { low: low.low, lowInclusive: low.lowInclusive, high: high.high, highInclusive: high.highInclusive };
}

export function intersect(a: FieldBounds, b: FieldBounds): FieldBounds {
  return normalize(a.flatMap((x) => b.flatMap((y) => intersectOne(x, y) ?? [])));
}

/**
 * mongod's bounds for equality with a value: null also matches missing fields and empty arrays
 * (undefined keys); an array matches itself or, as an element, its first element; a regex matches
 * strings (narrowed to its literal prefix when anchored) and regex values.
 */
function equalityBounds(value: unknown): FieldBounds {
  if (value === null) return [point(undefined), point(null)];
  if (Array.isArray(value)) return normalize([point(value), point(value.length === 0 ? undefined : value[0])]);
  if (value instanceof RegExp) return normalize([...regexStringBounds(value), point(value)]);
  return [point(value)];
}

/**
 * mongod's simple-prefix rule: `^literal` without the i or m flags and without `|` anywhere scans
 * [prefix, next prefix); other regexes scan every string.
 */
function regexStringBounds(regex: RegExp): Interval[] {
  const literal = /^\^([\w\- ]*)/.exec(regex.source)?.[1] ?? "";
  const quantified = /^[?*{]/.test(regex.source.slice(1 + literal.length));
  const prefix = quantified ? literal.slice(0, -1) : literal;
  const simple = regex.source.startsWith("^") && !regex.source.includes("|") && !regex.flags.includes("i") && !regex.flags.includes("m");
  if (!simple || prefix.length === 0) {
    return [{ low: "", lowInclusive: true, high: {}, highInclusive: false }];
  }
  const next = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return [{ low: prefix, lowInclusive: true, high: next, highInclusive: false }];
}

/** Type-bracketed ranges as mongod builds them: `$gt: 5` scans (5, inf], never strings. */
function rangeBounds(operator: string, value: unknown): FieldBounds | undefined {
  // An array operand compares whole arrays, which a multikey index does not hold: left to the filter.
  if (
    value === null ||
    value === undefined ||
    value instanceof RegExp ||
    Array.isArray(value) ||
    (typeof value === "number" && Number.isNaN(value))
  ) {
    return undefined;
  }
  const numeric = typeof value === "number";
  const text = typeof value === "string";
  const rank = typeRank(value);
  // mongod's minForType/maxForType: numbers end at infinities, strings run from "" up to (not
  // including) {}, the first object; other types are shown here as MinKey/MaxKey of their bracket.
  const lowest = numeric ? -Infinity : text ? "" : new KeyBound(rank, false);
  const highest = numeric ? Infinity : text ? {} : new KeyBound(rank, true);
  const highestInclusive = !text;
  switch (operator) {
    case "$gt":
      return [{ low: value, lowInclusive: false, high: highest, highInclusive: highestInclusive }];
    case "$gte":
      return [{ low: value, lowInclusive: true, high: highest, highInclusive: highestInclusive }];
    case "$lt":
      return [{ low: lowest, lowInclusive: true, high: value, highInclusive: false }];
    case "$lte":
      return [{ low: lowest, lowInclusive: true, high: value, highInclusive: true }];
    default:
      return undefined;
  }
}

function operatorBounds(operator: string, operand: unknown): FieldBounds | undefined {
  const value = toPlain(operand);
  if (operator === "$eq") return equalityBounds(value);
  if (operator === "$in") return Array.isArray(value) ? normalize(value.flatMap((element) => [...equalityBounds(element)])) : undefined;
  return rangeBounds(operator, value);
}

function isOperatorObject(value: unknown): value is Document {
  return isDocument(value) && Object.keys(value).some((key) => key.startsWith("$"));
}

/** What the planner can use from a filter: each field's indexable predicates in filter order, and a top-level $or. */
export interface IndexablePredicates {
  readonly byField: ReadonlyMap<string, FieldBounds[]>;
  /**
   * Fields whose every condition the bounds answer exactly (mongod's EXACT tightness), when the
   * filter is a plain conjunction of fields: an index scan over them needs no filter for them.
   */
  readonly exactFields: ReadonlySet<string>;
  /** The branches of the filter's top-level `$or`, if it has one. */
  readonly orBranches?: readonly Document[];
}

/**
 * The indexable predicates of the filter's top level and its `$and`s: equality, `$eq`, `$in`, and
 * `$gt`/`$gte`/`$lt`/`$lte`. Other operators are left to the filter, which decides every document anyway.
 */
export function indexablePredicates(filter: Document): IndexablePredicates {
  const byField = new Map<string, FieldBounds[]>();
  let orBranches: Document[] | undefined;
  const visit = (clause: Document): void => {
    for (const [field, condition] of Object.entries(clause)) {
      if (field === "$and" && Array.isArray(condition)) condition.filter(isDocument).forEach(visit);
      else if (field === "$or" && Array.isArray(condition) && orBranches === undefined) orBranches = condition.filter(isDocument);
      else if (!field.startsWith("$")) collectField(byField, field, condition);
    }
  };
  visit(filter);
  const conjunction = Object.keys(filter).every((field) => !field.startsWith("$"));
  const exactFields = new Set(conjunction ? Object.keys(filter).filter((field) => isExactCondition(filter[field])) : []);
  return orBranches === undefined ? { byField, exactFields } : { byField, exactFields, orBranches };
}

function collectField(byField: Map<string, FieldBounds[]>, field: string, condition: unknown): void {
  const found = isOperatorObject(condition)
    ? Object.entries(condition)
        .map(([operator, operand]) => operatorBounds(operator, operand))
        .filter((bounds) => bounds !== undefined)
    : [equalityBounds(toPlain(condition))];
  if (found.length > 0) byField.set(field, [...(byField.get(field) ?? []), ...found]);
}

/** Equality with a value the index holds as itself: not null (also matches missing), an array or a regex. */
function isExactEquality(value: unknown): boolean {
  const plain = toPlain(value);
  return plain !== null && plain !== undefined && !Array.isArray(plain) && !(plain instanceof RegExp);
}

/** A range operand whose type-bracketed bounds are exactly the operator's matches. */
function isExactRange(value: unknown): boolean {
  const plain = toPlain(value);
  return (
    (typeof plain === "number" && !Number.isNaN(plain)) ||
    ["string", "boolean"].includes(typeof plain) ||
    plain instanceof Date ||
    plain instanceof ObjectId
  );
}

function isExactCondition(condition: unknown): boolean {
  if (!isOperatorObject(condition)) return isExactEquality(condition);
  return Object.entries(condition).every(([operator, operand]) => {
    if (operator === "$eq") return isExactEquality(operand);
    if (operator === "$in") return Array.isArray(operand) && operand.every(isExactEquality);
    return ["$gt", "$gte", "$lt", "$lte"].includes(operator) && isExactRange(operand);
  });
}
