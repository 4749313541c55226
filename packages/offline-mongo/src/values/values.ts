import { BSON, BSONRegExp, Decimal128, Double, Int32, Long, ObjectId, Timestamp, Binary, type Document } from "bson";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";

/** A nested document (not an array and not a BSON value class such as ObjectId). */
export function isDocument(value: unknown): value is Document {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export type TypedNumber = Int32 | Double | Long | number;

export function isNumeric(value: unknown): value is TypedNumber {
  return typeof value === "number" || value instanceof Int32 || value instanceof Double || value instanceof Long;
}

/** Exact for int32 and double; for int64 only within ±2^53, which callers check with {@link isSafeLong}. */
export function toNumber(value: TypedNumber): number {
  if (typeof value === "number") return value;
  if (value instanceof Long) return value.toNumber();
  return value.value;
}

export function isSafeLong(value: Long): boolean {
  return (
    value.lessThanOrEqual(Long.fromNumber(Number.MAX_SAFE_INTEGER)) && value.greaterThanOrEqual(Long.fromNumber(Number.MIN_SAFE_INTEGER))
  );
}

/** mongod's type names, as used in its error messages and `$type`. */
export function bsonTypeName(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? "int" : "double";
  if (value instanceof Int32) return "int";
  if (value instanceof Double) return "double";
  if (value instanceof Long) return "long";
  if (value instanceof Decimal128) return "decimal";
  if (value instanceof ObjectId) return "objectId";
  if (value instanceof Date) return "date";
  if (value instanceof Binary) return "binData";
  if (value instanceof Timestamp) return "timestamp";
  if (value instanceof BSONRegExp || value instanceof RegExp) return "regex";
  if (Array.isArray(value)) return "array";
  if (isDocument(value)) return "object";
  return "unknown";
}

/**
 * The value as mingo can compare it: all numbers as JS numbers. An int64 beyond ±2^53 stays a Long
 * (mingo then only tests it for equality with the same Long); {@link assertComparable} refuses it where
 * ordering matters. BSON regexes become JS regexes when JS has their flags.
 */
export function toPlain(value: unknown): unknown {
  if (value instanceof Int32 || value instanceof Double) return value.value;
  if (value instanceof Long) return isSafeLong(value) ? value.toNumber() : value;
  if (value instanceof BSONRegExp) return toJsRegExp(value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (isDocument(value)) {
    const out: Document = {};
    for (const [key, inner] of Object.entries(value)) out[key] = toPlain(inner);
    return out;
  }
  return value;
}

function toJsRegExp(value: BSONRegExp): RegExp {
  const unsupported = [...value.options].filter((flag) => !"ims".includes(flag));
  if (unsupported.length > 0) throw notSupported(`regex option(s) '${unsupported.join("")}' (only i, m and s)`);
  return new RegExp(value.pattern, value.options);
}

/**
 * Refuses values whose comparison mingo would get wrong: int64 beyond ±2^53 and Decimal128.
 * Used on filters, sort keys and anything else that is compared rather than merely stored.
 */
export function assertComparable(value: unknown, where: string): void {
  if (value instanceof Long && !isSafeLong(value)) {
    throw notSupported(`comparing the int64 value ${value.toString()} (beyond ±2^53) in ${where}`);
  }
  if (value instanceof Decimal128) throw notSupported(`comparing Decimal128 values in ${where}`);
  if (Array.isArray(value)) value.forEach((inner) => assertComparable(inner, where));
  else if (isDocument(value)) Object.values(value).forEach((inner) => assertComparable(inner, where));
}

/**
 * A string equal for two values exactly when MongoDB considers them equal in an index:
 * numbers by numeric value whatever their type (1, 1.0 and Long 1 collide), strings by content,
 * documents by field order and values, null and missing alike.
 */
export function canonicalKey(value: unknown): string {
  if (value === undefined || value === null) return "z";
  if (isNumeric(value)) {
    if (value instanceof Long) return `n${value.toString()}`;
    const n = toNumber(value);
    return Number.isInteger(n) && !Object.is(n, -0) ? `n${BigInt(n).toString()}` : `n${n === 0 ? "0" : String(n)}`;
  }
  if (typeof value === "string") return `s${JSON.stringify(value)}`;
  if (typeof value === "boolean") return value ? "bt" : "bf";
  if (value instanceof ObjectId) return `o${value.toHexString()}`;
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof Decimal128) return `m${value.toString()}`;
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(",")}]`;
  if (isDocument(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalKey(v)}`)
      .join(",")}}`;
  }
  if (value instanceof Binary) return `x${value.sub_type}:${Buffer.from(value.buffer).toString("hex")}`;
  if (value instanceof BSONRegExp) return `r${value.pattern}/${value.options}`;
  if (value instanceof Timestamp) return `t${value.toString()}`;
  throw notSupported(`indexing a value of BSON type ${bsonTypeName(value)}`);
}

/**
 * True when two stored values are the same BSON value, type included (Int32 1 and Double 1 differ), so that
 * whatever is derived from them (index keys) is the same too. Cheaper than deriving: no key is built.
 */
export function sameStoredValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((element, i) => sameStoredValue(element, b[i]));
  if (isDocument(a)) return isDocument(b) && sameFields(a, b);
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null || a.constructor !== b.constructor) return false;
  if (a instanceof ObjectId) return a.equals(b as ObjectId);
  if (a instanceof Int32 || a instanceof Double) return Object.is(a.value, (b as Int32 | Double).value);
  if (a instanceof Date) return Object.is(a.getTime(), (b as Date).getTime());
  return Buffer.compare(BSON.serialize({ v: a }), BSON.serialize({ v: b })) === 0;
}

function sameFields(a: Document, b: Document): boolean {
  const names = Object.keys(a);
  const others = Object.keys(b);
  return names.length === others.length && names.every((name, i) => name === others[i] && sameStoredValue(a[name], b[name]));
}

/** mongod's shell-like rendering of a value in error messages, e.g. `ObjectId('…')`, `"text"`, `1.5`. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Double) return Number.isInteger(value.value) ? value.value.toFixed(1) : String(value.value);
  if (isNumeric(value)) return value instanceof Long ? value.toString() : String(toNumber(value));
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(", ")} ]`;
  if (isDocument(value)) return formatDocument(value);
  return String(value);
}

export function formatDocument(doc: Document): string {
  const fields = Object.entries(doc).map(([k, v]) => `${k}: ${formatValue(v)}`);
  return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
}

/** `{_id: ObjectId('…')}`, the way mongod names a document in update errors. */
export function describeId(doc: Document): string {
  return `{_id: ${formatValue(doc["_id"])}}`;
}

/** Copies documents and arrays; BSON value objects are immutable and shared. */
export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (isDocument(value)) {
    const out: Document = {};
    for (const [key, inner] of Object.entries(value)) out[key] = deepCopy(inner);
    return out as T;
  }
  return value;
}

/** The number typed the way the bson serializer would have typed a JS number coming from the client. */
export function defaultTyped(n: number): TypedNumber {
  if (Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31) return new Int32(n);
  if (Number.isSafeInteger(n)) return Long.fromNumber(n);
  return new Double(n);
}

export function sameNumber(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * Decides the BSON type of a number mingo produced at `path`, given the typed value that was
 * at the same place before (if any). Returning undefined falls back to the previous value when
 * it is the same number, else to {@link defaultTyped}.
 */
export type NumberTyper = (path: readonly string[], n: number, before: unknown) => TypedNumber | undefined;

/**
 * Turns a value mingo computed on plain numbers back into typed BSON, taking each number's type
 * from `before` (the typed value at the same path) unless `typer` knows better.
 */
export function retype(plain: unknown, before: unknown, typer?: NumberTyper, path: readonly string[] = []): unknown {
  if (typeof plain === "number") {
    const chosen = typer?.(path, plain, before);
    if (chosen !== undefined) return chosen;
    if (isNumeric(before) && sameNumber(toNumber(before), plain)) return before;
    return defaultTyped(plain);
  }
  if (plain instanceof RegExp) return new BSONRegExp(plain.source, plain.flags);
  if (Array.isArray(plain)) {
    const prior = Array.isArray(before) ? before : [];
    return plain.map((inner, i) => retype(inner, prior[i], typer, [...path, String(i)]));
  }
  if (isDocument(plain)) {
    const prior = isDocument(before) ? before : {};
    const out: Document = {};
    for (const [key, inner] of Object.entries(plain)) out[key] = retype(inner, prior[key], typer, [...path, key]);
    return out;
  }
  return plain;
}

/** Every numeric leaf of a typed value, for finding where a number mingo moved came from. */
export function numericLeaves(value: unknown, out: TypedNumber[] = []): TypedNumber[] {
  if (isNumeric(value)) out.push(value);
  else if (Array.isArray(value)) value.forEach((inner) => numericLeaves(inner, out));
  else if (isDocument(value)) Object.values(value).forEach((inner) => numericLeaves(inner, out));
  return out;
}

export function findSameNumber(candidates: readonly TypedNumber[], n: number): TypedNumber | undefined {
  return candidates.find((candidate) => sameNumber(toNumber(candidate), n));
}

/** Reads a numeric command argument (the driver may send int32, int64 or double). */
export function numberArg(command: string, field: string, value: unknown): number {
  if (!isNumeric(value)) {
    throw new MongoCommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(value)}', expected types '[long, int, decimal, double]'`,
    );
  }
  return toNumber(value);
}

export function optionalNumberArg(command: string, field: string, value: unknown): number | undefined {
  return value === undefined ? undefined : numberArg(command, field, value);
}

export function documentArg(command: string, field: string, value: unknown): Document {
  if (!isDocument(value)) {
    throw new MongoCommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'object'`,
    );
  }
  return value;
}

export function stringArg(command: string, field: string, value: unknown): string {
  if (typeof value !== "string") {
    throw new MongoCommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'string'`,
    );
  }
  return value;
}

/** Truthiness the way mongod reads boolean-ish options (numbers count as booleans). */
export function isTruthy(value: unknown): boolean {
  if (isNumeric(value)) return toNumber(value) !== 0;
  return value !== undefined && value !== null && value !== false;
}
