import { BSONRegExp, Decimal128, Double, Int32, Long, type Document } from "bson";
import { update as mingoUpdate } from "mingo/updater";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";
import { valueAt } from "../values/paths";
import { Aggregator } from "./mingo";
import { mingoOptions, translateMingoErrors, type CompiledFilter } from "./query";
import { compileArrayFilters, expandPath, patternMatches, resolvePositional } from "./update-paths";
import {
  assertComparable,
  bsonTypeName,
  canonicalKey,
  deepCopy,
  describeId,
  findSameNumber,
  formatValue,
  isDocument,
  isNumeric,
  isSafeLong,
  numericLeaves,
  retype,
  sameNumber,
  toNumber,
  toPlain,
  type TypedNumber,
} from "../values/values";

export type UpdateSpec =
  | { readonly kind: "replacement"; readonly doc: Document }
  | { readonly kind: "modifier"; readonly ops: Document }
  | { readonly kind: "pipeline"; readonly stages: readonly Document[] };

/** The stages mongod runs in an update given as a pipeline (it refuses the others with 72). */
const UPDATE_PIPELINE_STAGES = new Set(["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"]);

/** An update given as an array: an aggregation pipeline over the document, of the stages mongod allows there. */
function parsePipeline(stages: unknown[]): UpdateSpec {
  for (const stage of stages) {
    if (!isDocument(stage) || Object.keys(stage).length !== 1)
      throw new MongoCommandError(ErrorCode.TypeMismatch, "Each element of the 'pipeline' array must be an object with exactly one field");
    const name = Object.keys(stage)[0] ?? "";
    if (!UPDATE_PIPELINE_STAGES.has(name))
      throw new MongoCommandError(ErrorCode.InvalidOptions, `${name} is not allowed to be used within an update`);
  }
  return { kind: "pipeline", stages: stages as Document[] };
}

/** The document a pipeline update makes: the stages run over it (mingo), numbers typed as they were, `_id` unchanged. */
function applyPipeline(stages: readonly Document[], original: Document, inserting: boolean): Document {
  const [plain] = translateMingoErrors(() =>
    new Aggregator(
      stages.map((stage) => toPlain(stage) as Document),
      mingoOptions(),
    ).run([toPlain(original) as Document]),
  );
  const after = retype(plain ?? {}, original) as Document;
  if (!(inserting && !("_id" in original))) checkIdUnchanged(original, after);
  return idFirst(after);
}

const OPERATORS = new Set([
  "$set",
  "$setOnInsert",
  "$unset",
  "$inc",
  "$mul",
  "$rename",
  "$min",
  "$max",
  "$currentDate",
  "$push",
  "$addToSet",
  "$pop",
  "$pull",
  "$pullAll",
  "$bit",
]);
/** Operators whose operand becomes the new value as is (so it also gives the new value's type). */
const REPLACING = new Set(["$set", "$setOnInsert"]);
const ARITHMETIC = new Set(["$inc", "$mul"]);

export function parseUpdate(u: unknown, multi: boolean): UpdateSpec {
  if (Array.isArray(u)) return parsePipeline(u);
  if (!isDocument(u)) throw new MongoCommandError(ErrorCode.TypeMismatch, "Update argument must be either an object or an array");
  const keys = Object.keys(u);
  if (!keys.some((key) => key.startsWith("$"))) {
    if (multi) throw new MongoCommandError(ErrorCode.FailedToParse, "multi update is not supported for replacement-style update");
    return { kind: "replacement", doc: u };
  }
  for (const [op, operand] of Object.entries(u)) {
    if (!OPERATORS.has(op)) {
      throw new MongoCommandError(
        ErrorCode.FailedToParse,
        `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    if (!isDocument(operand)) {
      throw new MongoCommandError(
        ErrorCode.FailedToParse,
        `Modifiers operate on fields but we found type ${bsonTypeName(operand)} instead. For example: {$mod: {<field>: ...}} not {${op}: ${String(operand)}}`,
      );
    }
  }
  checkConflicts(u);
  return { kind: "modifier", ops: u };
}

/** Two operators (or one twice) touching overlapping paths is an error on mongod, not last-wins. */
function checkConflicts(ops: Document): void {
  const seen: string[] = [];
  for (const [op, operand] of Object.entries(ops)) {
    const paths = Object.entries(operand as Document).flatMap(([path, value]) =>
      op === "$rename" && typeof value === "string" ? [path, value] : [path],
    );
    for (const path of paths) {
      const clash = seen.find((other) => other === path || other.startsWith(`${path}.`) || path.startsWith(`${other}.`));
      if (clash !== undefined) {
        const shorter = clash.length < path.length ? clash : path;
        throw new MongoCommandError(
          ErrorCode.ConflictingUpdateOperators,
          `Updating the path '${path}' would create a conflict at '${shorter}'`,
        );
      }
      seen.push(path);
    }
  }
}

export interface UpdateContext {
  /** The query that selected the document, for the positional `$`. */
  readonly filter: Document;
  readonly arrayFilters: readonly Document[];
  /** True when the document is being created by an upsert ($setOnInsert applies; `_id` may be set). */
  readonly inserting: boolean;
  /** The document's plain values (`toPlain`) when the caller holds them, as a stored record does: never written to. */
  readonly plain?: Document;
}

/** The updated document as a new object (the stored one is never touched); throws mongod's error otherwise. */
export function applyUpdate(spec: UpdateSpec, original: Document, context: UpdateContext): Document {
  if (spec.kind === "replacement") return replaceDocument(original, spec.doc, context.inserting);
  if (spec.kind === "pipeline") return applyPipeline(spec.stages, original, context.inserting);
  const plainOriginal = context.plain ?? (toPlain(original) as Document);
  const resolved = effectiveOperators(spec.ops, context, plainOriginal);
  const { ops, base: before } = separateIdUpdate(resolved, original, context.inserting);
  const plainBefore = before === original ? plainOriginal : (toPlain(before) as Document);
  const patterns = Object.values(ops).flatMap((operand) => Object.keys(operand as Document));
  const arrayFilters = compileArrayFilters(context.arrayFilters, patterns);
  for (const [op, operand] of Object.entries(ops)) {
    for (const [path, value] of Object.entries(operand as Document)) validateOperation(op, path, value, before, arrayFilters);
  }
  const plain = deepCopy(plainBefore);
  translateMingoErrors(() =>
    mingoUpdate(
      plain,
      toPlain(ops) as Document,
      context.arrayFilters.map((f) => toPlain(f) as Document),
      undefined,
      {
        cloneMode: "deep",
        queryOptions: mingoOptions(),
      },
    ),
  );
  const after = retype(plain, before, numberTyper(ops, before)) as Document;
  checkIdUnchanged(before, after);
  return idFirst(orderNewFields(after, before));
}

/**
 * mongod (5.0 on) applies an update's paths in lexicographic order, so the fields it creates in an
 * existing document come after the old ones sorted by name, whatever order the operators named them
 * in; mingo follows operator order. Values written whole (a `$set` of a subdocument) are left as sent.
 */
function orderNewFields(after: Document, before: Document): Document {
  const ordered: Document = {};
  for (const [key, old] of Object.entries(before)) {
    if (!(key in after)) continue;
    const value = after[key];
    ordered[key] = isDocument(value) && isDocument(old) ? orderNewFields(value, old) : value;
  }
  const created = Object.keys(after)
    .filter((key) => !(key in before))
    .sort();
  for (const key of created) ordered[key] = after[key];
  return ordered;
}

/**
 * mingo refuses to touch `_id` at all; mongod allows setting it to the value it already has, and
 * setting it when an upsert creates the document. Both are done here; anything else is error 66.
 */
function separateIdUpdate(ops: Document, before: Document, inserting: boolean): { ops: Document; base: Document } {
  const out: Document = {};
  let base = before;
  for (const [op, operand] of Object.entries(ops)) {
    const kept: Document = {};
    for (const [path, value] of Object.entries(operand as Document)) {
      if (path !== "_id" && !path.startsWith("_id.")) kept[path] = value;
      else if (op === "$set" && path === "_id" && inserting && !("_id" in before)) base = { _id: value, ...before };
      else if (!(op === "$set" && path === "_id" && canonicalKey(value) === canonicalKey(before["_id"]))) {
        throw new MongoCommandError(
          ErrorCode.ImmutableField,
          "Performing an update on the path '_id' would modify the immutable field '_id'",
        );
      }
    }
    if (Object.keys(kept).length > 0) out[op] = kept;
  }
  return { ops: out, base };
}

function replaceDocument(before: Document, replacement: Document, inserting: boolean): Document {
  if ("_id" in replacement && "_id" in before && canonicalKey(replacement["_id"]) !== canonicalKey(before["_id"])) {
    throw new MongoCommandError(
      ErrorCode.ImmutableField,
      `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${String(replacement["_id"])}`,
    );
  }
  const { _id: id, ...rest } = replacement;
  const keptId = "_id" in before ? before["_id"] : id;
  return keptId === undefined && inserting ? { ...rest } : { _id: keptId, ...deepCopy(rest) };
}

/** $setOnInsert becomes $set on insert and disappears otherwise; `$` becomes the matched index. */
function effectiveOperators(ops: Document, context: UpdateContext, plainBefore: Document): Document {
  const out: Document = {};
  for (const [op, operand] of Object.entries(ops)) {
    if (op === "$setOnInsert" && !context.inserting) continue;
    const target = op === "$setOnInsert" ? "$set" : op;
    const resolved: Document = { ...(out[target] as Document | undefined) };
    for (const [path, value] of Object.entries(operand as Document)) {
      resolved[context.inserting ? path : resolvePositional(path, context.filter, plainBefore)] = value;
    }
    out[target] = resolved;
  }
  return out;
}

function validateOperation(
  op: string,
  path: string,
  operand: unknown,
  doc: Document,
  arrayFilters: ReadonlyMap<string, CompiledFilter>,
): void {
  if (op === "$unset" || op === "$rename" || op === "$currentDate") {
    if (op === "$currentDate" && isDocument(operand) && operand["$type"] === "timestamp")
      throw notSupported("$currentDate with $type 'timestamp'");
    return;
  }
  assertComparable(operand, `the ${op} operand`);
  if (ARITHMETIC.has(op) && !isNumeric(operand)) {
    const verb = op === "$inc" ? "increment" : "multiply";
    throw new MongoCommandError(ErrorCode.TypeMismatch, `Cannot ${verb} with non-numeric argument: {${path}: ${formatValue(operand)}}`);
  }
  for (const { path: concrete, value } of expandPath(doc, path.split("."), arrayFilters)) {
    if (value === undefined) continue;
    const field = concrete[concrete.length - 1] ?? path;
    const type = bsonTypeName(value);
    if (ARITHMETIC.has(op)) {
      if (!isNumeric(value)) {
        throw new MongoCommandError(
          ErrorCode.TypeMismatch,
          `Cannot apply ${op} to a value of non-numeric type. ${describeId(doc)} has the field '${field}' of non-numeric type ${type}`,
        );
      }
      assertComparable(value, `the target of ${op}`);
    } else if (op === "$push" && !Array.isArray(value)) {
      throw new MongoCommandError(
        ErrorCode.BadValue,
        `The field '${field}' must be an array but is of type ${type} in document ${describeId(doc)}`,
      );
    } else if (op === "$addToSet" && !Array.isArray(value)) {
      throw new MongoCommandError(
        ErrorCode.BadValue,
        `Cannot apply $addToSet to non-array field. Field named '${field}' has non-array type ${type}`,
      );
    } else if ((op === "$pull" || op === "$pullAll") && !Array.isArray(value)) {
      throw new MongoCommandError(ErrorCode.BadValue, "Cannot apply $pull to a non-array value");
    } else if (op === "$pop" && !Array.isArray(value)) {
      throw new MongoCommandError(ErrorCode.TypeMismatch, `Path '${concrete.join(".")}' contains an element of non-array type '${type}'`);
    } else if (
      op === "$bit" &&
      !(value instanceof Int32 || value instanceof Long || (typeof value === "number" && Number.isInteger(value)))
    ) {
      throw new MongoCommandError(
        ErrorCode.TypeMismatch,
        `Cannot apply $bit to a value of non-integral type.${describeId(doc)} has the field ${field} of non-integer type ${type}`,
      );
    } else if (value instanceof Decimal128) {
      throw notSupported(`${op} on Decimal128 values`);
    }
  }
}

/**
 * Chooses the BSON type of each number in mingo's result: the operand's type where an operator
 * wrote the operand, MongoDB's arithmetic promotion where $inc/$mul computed it, otherwise the type
 * the same number had before (at the same place, else anywhere in the document).
 */
function numberTyper(ops: Document, before: Document): (path: readonly string[], n: number, prior: unknown) => TypedNumber | undefined {
  const entries = Object.entries(ops).flatMap(([op, operand]) =>
    Object.entries(operand as Document).map(([path, value]) => ({ op, pattern: path.split("."), value })),
  );
  const pool = numericLeaves(before);
  return (path, n, prior) => {
    for (const { op, pattern, value } of entries) {
      if (ARITHMETIC.has(op) && patternMatches(pattern, path, true) && isNumeric(value)) return arithmeticResult(n, prior, value);
      if (REPLACING.has(op) && patternMatches(pattern, path, false)) {
        const written = valueAt({ v: value }, ["v", ...path.slice(pattern.length)]);
        if (isNumeric(written) && sameNumber(toNumber(written), n)) return written;
      }
    }
    if (isNumeric(prior) && sameNumber(toNumber(prior), n)) return prior;
    for (const { pattern, value } of entries) {
      const found = patternMatches(pattern, path, false) ? findSameNumber(numericLeaves(value), n) : undefined;
      if (found !== undefined) return found;
    }
    return findSameNumber(pool, n);
  };
}

/** MongoDB's promotion: double wins, then long; int32 overflowing becomes long. */
function arithmeticResult(n: number, prior: unknown, operand: TypedNumber): TypedNumber {
  const types = [bsonTypeName(operand), isNumeric(prior) ? bsonTypeName(prior) : "int"];
  if (types.includes("double")) return new Double(n);
  if (!Number.isSafeInteger(n)) throw notSupported(`integer arithmetic beyond ±2^53 (result ${n})`);
  if (types.includes("long") || n < -(2 ** 31) || n >= 2 ** 31) {
    const result = Long.fromNumber(n);
    if (!isSafeLong(result)) throw notSupported("int64 arithmetic beyond ±2^53");
    return result;
  }
  return new Int32(n);
}

function checkIdUnchanged(before: Document, after: Document): void {
  if (canonicalKey(before["_id"]) !== canonicalKey(after["_id"]) || "_id" in before !== "_id" in after) {
    throw new MongoCommandError(ErrorCode.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
}

function idFirst(doc: Document): Document {
  if (!("_id" in doc)) return doc;
  const { _id: id, ...rest } = doc;
  return { _id: id, ...rest };
}

/**
 * The document an upsert starts from: the filter's equality fields (`{a: 1}`, `{a: {$eq: 1}}`, a
 * one-element `$in` or `$all`, inside `$and` or a one-clause `$or`), as mongod extracts them. A bare
 * regex is a pattern, not a value, so it seeds nothing. A replacement keeps only the `_id` fields.
 */
export function upsertSeed(filter: Document, onlyId: boolean): Document {
  const seed: Document = {};
  const claimed: string[] = [];
  const visit = (clause: Document): void => {
    for (const [field, condition] of Object.entries(clause)) {
      if (Array.isArray(condition) && (field === "$and" || (field === "$or" && condition.length === 1))) {
        condition.forEach((inner) => isDocument(inner) && visit(inner));
      }
      if (field.startsWith("$") || (onlyId && field !== "_id" && !field.startsWith("_id."))) continue;
      for (const value of equalityValues(condition)) {
        claimPath(claimed, field);
        setPath(seed, field.split("."), deepCopy(value));
      }
    }
  };
  visit(filter);
  return seed;
}

function equalityValues(condition: unknown): unknown[] {
  if (condition instanceof BSONRegExp) return [];
  if (!isDocument(condition) || !Object.keys(condition).some((key) => key.startsWith("$"))) return [condition];
  const values = "$eq" in condition ? [condition["$eq"]] : [];
  const oneOf = condition["$in"];
  if (Array.isArray(oneOf) && oneOf.length === 1 && !(oneOf[0] instanceof BSONRegExp)) values.push(oneOf[0]);
  // `$all` is an `$and` of equalities: each element claims the path (so two are a conflict).
  const all = condition["$all"];
  if (Array.isArray(all)) values.push(...all.filter((value) => !(value instanceof BSONRegExp) && !isDocument(value)));
  return values;
}

/** mongod refuses to seed one path twice, or a path and its prefix, with NotSingleValueField (54). */
function claimPath(claimed: string[], path: string): void {
  for (const other of claimed) {
    if (other === path)
      throw new MongoCommandError(ErrorCode.NotSingleValueField, `cannot infer query fields to set, path '${path}' is matched twice`);
    if (other.startsWith(`${path}.`) || path.startsWith(`${other}.`)) {
      throw new MongoCommandError(
        ErrorCode.NotSingleValueField,
        `cannot infer query fields to set, both paths '${path}' and '${other}' are matched`,
      );
    }
  }
  claimed.push(path);
}

function setPath(doc: Document, segments: readonly string[], value: unknown): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (rest.length === 0) {
    doc[head] = value;
    return;
  }
  const child = isDocument(doc[head]) ? (doc[head] as Document) : {};
  doc[head] = child;
  setPath(child, rest, value);
}
