import { Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp, type Document } from "bson";

/** Entities a match may refer to (`$$sessionLsid`, `$$matchesEntity`). */
export interface MatchEntities {
  lsidOf(sessionName: string): Document;
  valueOf(entityName: string): unknown;
}

/** Why a value did not match, with the path to it: the runner's failure message. */
export class MismatchError extends Error {
  constructor(path: string, message: string) {
    super(`${path || "(root)"}: ${message}`);
  }
}

function isPlainDocument(value: unknown): value is Document {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return !("_bsontype" in value) && !(value instanceof Date) && !(value instanceof Uint8Array);
}

function operatorOf(value: unknown): string | undefined {
  if (!isPlainDocument(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0]!.startsWith("$$") ? keys[0] : undefined;
}

/** A number of any BSON numeric type as a JS number, or undefined for anything else (Decimal128 excluded, as the format says). */
function numericValue(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Long) return value.toNumber();
  if (value instanceof Int32 || value instanceof Double) return value.valueOf();
  return undefined;
}

/** The `$type` aliases of a value; a JS number may stand for int, long or double, since the driver promotes them. */
function typeNamesOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (value === undefined) return [];
  if (typeof value === "string") return ["string"];
  if (typeof value === "boolean") return ["bool"];
  if (typeof value === "number") return Number.isInteger(value) ? ["int", "long", "double"] : ["double"];
  if (typeof value === "bigint" || value instanceof Long) return ["long"];
  if (value instanceof Int32) return ["int"];
  if (value instanceof Double) return ["double"];
  if (value instanceof Decimal128) return ["decimal"];
  if (value instanceof ObjectId) return ["objectId"];
  if (value instanceof Timestamp) return ["timestamp"];
  if (value instanceof Date) return ["date"];
  if (value instanceof Binary || value instanceof Uint8Array) return ["binData"];
  if (Array.isArray(value)) return ["array"];
  if (isPlainDocument(value)) return ["object"];
  return [String((value as { _bsontype?: string })._bsontype ?? typeof value)];
}

function sameScalar(expected: unknown, actual: unknown): boolean {
  const [e, a] = [numericValue(expected), numericValue(actual)];
  if (e !== undefined || a !== undefined) return e !== undefined && a !== undefined && e === a;
  if (expected instanceof Timestamp && actual instanceof Timestamp) return expected.equals(actual);
  if (expected instanceof ObjectId && actual instanceof ObjectId) return expected.equals(actual);
  if (expected instanceof Binary && actual instanceof Binary)
    return Buffer.compare(expected.buffer, actual.buffer) === 0 && expected.sub_type === actual.sub_type;
  if (expected instanceof Date && actual instanceof Date) return expected.getTime() === actual.getTime();
  if (expected instanceof Decimal128 && actual instanceof Decimal128) return expected.toString() === actual.toString();
  return expected === actual;
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The unified test format's match (its "Evaluating Matches"): extra fields only in root-level documents,
 * arrays of equal length, flexible numerics, and the `$$` operators. Throws MismatchError on the first difference.
 */
export function assertMatches(expected: unknown, actual: unknown, entities: MatchEntities, root = true, path = ""): void {
  const operator = operatorOf(expected);
  if (operator !== undefined) return assertOperator(operator, (expected as Document)[operator], actual, entities, root, path);
  if (isPlainDocument(expected)) {
    if (!isPlainDocument(actual)) throw new MismatchError(path, `expected a document, got ${describe(actual)}`);
    for (const [key, value] of Object.entries(expected)) {
      const keyOperator = operatorOf(value);
      const at = path ? `${path}.${key}` : key;
      if (keyOperator === "$$exists") {
        const exists = Object.prototype.hasOwnProperty.call(actual, key) && actual[key] !== undefined;
        if (exists !== Boolean((value as Document)["$$exists"])) throw new MismatchError(at, exists ? "should not exist" : "should exist");
        continue;
      }
      if (keyOperator === "$$unsetOrMatches" && actual[key] === undefined) continue;
      if (!(key in actual) || actual[key] === undefined) throw new MismatchError(at, `missing; expected ${describe(value)}`);
      assertMatches(value, actual[key], entities, false, at);
    }
    if (!root) {
      const extra = Object.keys(actual).filter((key) => !(key in expected) && actual[key] !== undefined);
      if (extra.length > 0) throw new MismatchError(path, `unexpected fields ${extra.join(", ")}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) throw new MismatchError(path, `expected an array, got ${describe(actual)}`);
    if (actual.length !== expected.length)
      throw new MismatchError(path, `expected ${expected.length} elements, got ${actual.length}: ${describe(actual)}`);
    expected.forEach((value, index) => assertMatches(value, actual[index], entities, false, `${path}[${index}]`));
    return;
  }
  if (!sameScalar(expected, actual)) throw new MismatchError(path, `expected ${describe(expected)}, got ${describe(actual)}`);
}

function assertOperator(operator: string, argument: unknown, actual: unknown, entities: MatchEntities, root: boolean, path: string): void {
  switch (operator) {
    case "$$type": {
      const wanted = Array.isArray(argument) ? (argument as string[]) : [String(argument)];
      const names = typeNamesOf(actual);
      if (!wanted.some((name) => names.includes(name)))
        throw new MismatchError(path, `expected type ${wanted.join("|")}, got ${names.join("|") || "nothing"}`);
      return;
    }
    case "$$unsetOrMatches":
      if (actual !== undefined) assertMatches(argument, actual, entities, root, path);
      return;
    case "$$exists":
      // Nested in another operator ({$$unsetOrMatches: {$$exists: true}}), it asserts the value it is handed.
      if ((actual !== undefined) !== Boolean(argument))
        throw new MismatchError(path, actual === undefined ? "should exist" : "should not exist");
      return;
    case "$$sessionLsid":
      return assertMatches(entities.lsidOf(String(argument)), actual, entities, false, path);
    case "$$matchesEntity":
      return assertMatches(entities.valueOf(String(argument)), actual, entities, root, path);
    case "$$lte": {
      const [limit, value] = [numericValue(argument), numericValue(actual)];
      if (limit === undefined || value === undefined || value > limit)
        throw new MismatchError(path, `expected at most ${describe(argument)}, got ${describe(actual)}`);
      return;
    }
    case "$$matchAsRoot":
      return assertMatches(argument, actual, entities, true, path);
    case "$$matchAsDocument":
      if (typeof actual !== "string") throw new MismatchError(path, "$$matchAsDocument needs a string");
      return assertMatches(argument, JSON.parse(actual) as unknown, entities, false, path);
    default:
      throw new UnsupportedError(`the match operator ${operator}`);
  }
}

/** Something the test asks that this runner does not do: the test is skipped with this reason, never counted wrong. */
export class UnsupportedError extends Error {
  constructor(what: string) {
    super(`the runner does not support ${what}`);
  }
}

/** Exact equality of stored documents (a test's `outcome`): no extra fields anywhere, key order free, numerics flexible. */
export function assertSameDocuments(expected: Document[], actual: Document[], entities: MatchEntities): void {
  if (expected.length !== actual.length)
    throw new MismatchError("outcome", `expected ${expected.length} documents, got ${actual.length}: ${describe(actual)}`);
  expected.forEach((document, index) => assertMatches(document, actual[index], entities, false, `outcome[${index}]`));
}
