import { Aggregator as CoreAggregator } from "mingo/aggregator";
import { Context } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import * as pipelineOperators from "mingo/operators/pipeline";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import * as windowOperators from "mingo/operators/window";
import { Query as CoreQuery } from "mingo/query";
import type { Options } from "mingo/types";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";
import { valueAt, valuesAtPath } from "../values/paths";
import { bsonTypeName } from "../values/values";

/** mongod's `$type` aliases and the numbers it also accepts for them. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  double: "double",
  string: "string",
  object: "object",
  array: "array",
  binData: "binData",
  objectId: "objectId",
  bool: "bool",
  date: "date",
  null: "null",
  regex: "regex",
  int: "int",
  timestamp: "timestamp",
  long: "long",
  decimal: "decimal",
  number: "number",
  1: "double",
  2: "string",
  3: "object",
  4: "array",
  5: "binData",
  7: "objectId",
  8: "bool",
  9: "date",
  10: "null",
  11: "regex",
  16: "int",
  17: "timestamp",
  18: "long",
  19: "decimal",
};
/** The query engine sees numbers without their BSON subtype, so only "number" can be answered exactly. */
const NUMERIC_SUBTYPES = new Set(["double", "int", "long", "decimal"]);

function typeAlias(wanted: unknown): string {
  const alias = TYPE_ALIASES[String(wanted)];
  if (alias === undefined) {
    throw new MongoCommandError(
      ErrorCode.BadValue,
      typeof wanted === "string" ? `Unknown type name alias: ${wanted}` : `Invalid numerical type code: ${String(wanted)}`,
    );
  }
  if (NUMERIC_SUBTYPES.has(alias)) throw notSupported(`$type '${alias}' (the offline server matches numbers by value only; use 'number')`);
  return alias;
}

/**
 * mingo's own `$type` answers false for type names it does not know (objectId among them) and
 * treats every number as every numeric type; this one answers exactly or refuses.
 */
function exactType(selector: string, wanted: unknown, _options: Options): (doc: Record<string, unknown>) => boolean {
  const aliases = (Array.isArray(wanted) ? wanted : [wanted]).map(typeAlias);
  return (doc) => {
    const whole = valueAt(doc, selector.split("."));
    const candidates = Array.isArray(whole) ? [whole, ...whole] : valuesAtPath(doc, selector);
    return candidates.some((value) =>
      aliases.some((alias) => (alias === "number" ? typeof value === "number" : bsonTypeName(value) === alias)),
    );
  };
}

type Predicate = (doc: Record<string, unknown>) => boolean;

/**
 * mongod matches each array in a `$in` as `{field: array}` does, by whole-array equality too (so `[]`
 * matches a field holding `[]`); mingo's `$in` compares only the field's elements, so those arrays
 * become `$eq`s beside a `$in` of the rest. Anything else (a non-array operand) keeps mingo's refusal.
 */
function inMatchingArrays(selector: string, operand: unknown, options: Options): Predicate {
  if (!Array.isArray(operand) || !operand.some(Array.isArray)) return queryOperators.$in(selector, operand, options);
  const scalars = queryOperators.$in(
    selector,
    operand.filter((element) => !Array.isArray(element)),
    options,
  );
  const arrays = operand.filter(Array.isArray).map((element: unknown) => queryOperators.$eq(selector, element, options));
  return (doc) => scalars(doc) || arrays.some((matches) => matches(doc));
}

/** mongod's `$nin` is the negation of its `$in`, arrays in the operand included. */
function ninMatchingArrays(selector: string, operand: unknown, options: Options): Predicate {
  if (!Array.isArray(operand)) return queryOperators.$nin(selector, operand, options);
  const matches = inMatchingArrays(selector, operand, options);
  return (doc) => !matches(doc);
}

/** mongod refuses a `$size` it cannot match when it parses the query (code 2); mingo would match nothing. */
function checkedSize(selector: string, operand: unknown, options: Options): Predicate {
  if (typeof operand !== "number") throw new MongoCommandError(ErrorCode.BadValue, "$size needs a number");
  if (!Number.isInteger(operand)) throw new MongoCommandError(ErrorCode.BadValue, "$size must be a whole number");
  if (operand < 0) throw new MongoCommandError(ErrorCode.BadValue, "$size may not be negative");
  return queryOperators.$size(selector, operand, options);
}

/** mongod refuses a `$mod` by 0 when it parses the query (code 2); mingo would compute NaN and match nothing. */
function checkedMod(selector: string, operand: unknown, options: Options): Predicate {
  if (Array.isArray(operand) && operand.length === 2 && typeof operand[0] === "number" && Math.trunc(operand[0]) === 0) {
    throw new MongoCommandError(ErrorCode.BadValue, "divisor cannot be 0");
  }
  return queryOperators.$mod(selector, operand, options);
}

const CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: expressionOperators,
  pipeline: pipelineOperators,
  projection: projectionOperators,
  query: { ...queryOperators, $type: exactType, $in: inMatchingArrays, $nin: ninMatchingArrays, $size: checkedSize, $mod: checkedMod },
  window: windowOperators,
});

/** The aggregation stages this server runs (mingo's, less the ones the server refuses before they reach it). */
export const PIPELINE_STAGES: ReadonlySet<string> = new Set(Object.keys(pipelineOperators));

type CoreOptions = Partial<Options>;

/** mingo's Query with this server's operator set. */
export class Query extends CoreQuery {
  constructor(condition: Record<string, unknown>, options: CoreOptions = {}) {
    super(condition, { ...options, context: CONTEXT });
  }
}

/** mingo's Aggregator with this server's operator set. */
export class Aggregator extends CoreAggregator {
  constructor(pipeline: Record<string, unknown>[], options: CoreOptions = {}) {
    super(pipeline, { ...options, context: CONTEXT });
  }
}
