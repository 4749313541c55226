import { Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp, type Document } from "mongodb";

/** What the unified test format's special operators need from the test's entities. */
export interface MatchContext {
  entity(id: string): unknown;
}

export class Mismatch extends Error {}

/** A document: a plain object, or a driver class standing for one (a WriteConcern, a BulkWriteResult), not a BSON value. */
function isPlainObject(value: unknown): value is Document {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return !("_bsontype" in value) && !(value instanceof Date) && !(value instanceof Uint8Array);
}

function numeric(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof Int32 || value instanceof Double) return value.value;
  if (value instanceof Long && !(value instanceof Timestamp)) return value.toNumber();
  return undefined;
}

/** The unified format's type names for `$$type`. */
function typeNames(value: unknown): string[] {
  if (value === null) return ["null"];
  if (typeof value === "string") return ["string"];
  if (typeof value === "boolean") return ["bool"];
  // The driver hands int32 and (fitting) int64 values over as JS numbers: a number matches every numeric type it could have been.
  if (typeof value === "number") return Number.isInteger(value) ? ["int", "long", "double", "number"] : ["double", "number"];
  if (value instanceof Int32) return ["int", "number"];
  if (value instanceof Double) return ["double", "number"];
  if (value instanceof Timestamp) return ["timestamp"];
  if (value instanceof Long) return ["long", "number"];
  if (value instanceof Decimal128) return ["decimal", "number"];
  if (value instanceof ObjectId) return ["objectId"];
  if (value instanceof Date) return ["date"];
  if (value instanceof Binary) return ["binData"];
  if (Array.isArray(value)) return ["array"];
  if (isPlainObject(value)) return ["object"];
  return ["unknown"];
}

function fail(path: string, message: string): never {
  throw new Mismatch(`${path || "(root)"}: ${message}`);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 300) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The unified test format's `valuesMatch`: throws a Mismatch naming the first difference. */
export function assertMatches(expected: unknown, actual: unknown, context: MatchContext, root = true, path = ""): void {
  if (isPlainObject(expected)) {
    const keys = Object.keys(expected);
    const operator = keys.length === 1 && keys[0]?.startsWith("$$") ? keys[0] : undefined;
    if (operator !== undefined) return matchOperator(operator, expected[operator], actual, context, root, path);
    if (!isPlainObject(actual)) fail(path, `expected a document, got ${describe(actual)}`);
    for (const key of keys) {
      const inner: unknown = expected[key];
      const sub = path === "" ? key : `${path}.${key}`;
      if (isPlainObject(inner) && Object.keys(inner).length === 1) {
        if ("$$exists" in inner) {
          if ((key in actual && actual[key] !== undefined) !== inner["$$exists"])
            fail(sub, `expected $$exists: ${String(inner["$$exists"])}`);
          continue;
        }
        if ("$$unsetOrMatches" in inner && !(key in actual)) continue;
      }
      if (!(key in actual)) fail(sub, "missing");
      assertMatches(inner, actual[key], context, false, sub);
    }
    if (!root)
      for (const key of Object.keys(actual)) if (!(key in expected) && actual[key] !== undefined) fail(path, `unexpected field '${key}'`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) fail(path, `expected an array, got ${describe(actual)}`);
    if (actual.length !== expected.length) fail(path, `expected ${expected.length} elements, got ${actual.length}: ${describe(actual)}`);
    expected.forEach((item, i) => assertMatches(item, actual[i], context, false, `${path}.${i}`));
    return;
  }
  const expectedNumber = numeric(expected);
  if (expectedNumber !== undefined) {
    if (numeric(actual) !== expectedNumber) fail(path, `expected ${expectedNumber}, got ${describe(actual)}`);
    return;
  }
  if (!sameValue(expected, actual)) fail(path, `expected ${describe(expected)}, got ${describe(actual)}`);
}

function sameValue(expected: unknown, actual: unknown): boolean {
  if (expected instanceof ObjectId) return actual instanceof ObjectId && expected.equals(actual);
  if (expected instanceof Timestamp) return actual instanceof Timestamp && expected.equals(actual);
  if (expected instanceof Date) return actual instanceof Date && expected.getTime() === actual.getTime();
  if (expected instanceof Binary) return actual instanceof Binary && Buffer.from(expected.buffer).equals(Buffer.from(actual.buffer));
  if (expected instanceof Decimal128) return actual instanceof Decimal128 && expected.toString() === actual.toString();
  return expected === actual;
}

function matchOperator(operator: string, argument: unknown, actual: unknown, context: MatchContext, root: boolean, path: string): void {
  switch (operator) {
    case "$$exists":
      if ((actual !== undefined) !== argument) fail(path, `expected $$exists: ${String(argument)}`);
      return;
    case "$$type": {
      const wanted = Array.isArray(argument) ? argument.map(String) : [String(argument)];
      if (!typeNames(actual).some((name) => wanted.includes(name)))
        fail(path, `expected type ${wanted.join("|")}, got ${describe(actual)}`);
      return;
    }
    case "$$unsetOrMatches":
      if (actual === undefined) return;
      return assertMatches(argument, actual, context, root, path);
    case "$$matchesEntity":
      return assertMatches(context.entity(String(argument)), actual, context, root, path);
    case "$$sessionLsid": {
      const session = context.entity(String(argument)) as { id?: Document };
      return assertMatches(session.id, actual, context, false, path);
    }
    case "$$lte": {
      const limit = numeric(argument);
      const value = numeric(actual);
      if (limit === undefined || value === undefined || value > limit) fail(path, `expected <= ${String(limit)}, got ${describe(actual)}`);
      return;
    }
    case "$$matchAsDocument":
      if (typeof actual !== "string") fail(path, "expected a JSON string");
      return assertMatches(argument, JSON.parse(actual), context, false, path);
    case "$$matchAsRoot":
      return assertMatches(argument, actual, context, true, path);
    case "$$matchesHexBytes":
      if (!(actual instanceof Binary) || Buffer.from(actual.buffer).toString("hex") !== String(argument).toLowerCase())
        fail(path, "bytes differ");
      return;
    default:
      throw new Unsupported(`the matching operator ${operator}`);
  }
}

/** Something the runner does not implement: the test is skipped, naming it. */
export class Unsupported extends Error {}
