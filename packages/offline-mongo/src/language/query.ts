import type { Document } from "bson";
import { Query } from "./mingo";
import type { CollectionResolver } from "mingo/types";
import { compareValues } from "../values/compare";
import { ErrorCode, LocationCode, MongoCommandError, notSupported } from "../errors";
import { valueAt, valuesAtPath } from "../values/paths";
import { unavailableStage } from "./pipeline-stages";
import { assertComparable, isDocument, isNumeric, toNumber, toPlain } from "../values/values";

/** Operators mongod supports that would run client-supplied JavaScript: refused, mingo would run it here. */
const SCRIPT_OPERATORS = ["$where", "$function", "$accumulator"];

export interface MingoContext {
  readonly collectionResolver?: CollectionResolver;
}

export function mingoOptions(context: MingoContext = {}): { scriptEnabled: false; collectionResolver?: CollectionResolver } {
  return { scriptEnabled: false, ...context };
}

/** Runs a mingo call, answering its complaints with the error mongod gives for the same input. */
export function translateMingoErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof MongoCommandError || !(error instanceof Error)) throw error;
    const unknown = /unknown (?:query |top level )?operator:? '?(\$[\w$]+)/i.exec(error.message);
    if (unknown) throw new MongoCommandError(ErrorCode.BadValue, `unknown operator: ${unknown[1]}`);
    // A stage inside a sub-pipeline ($facet, $lookup, $unionWith), where no topology allows a change stream.
    const stage = /unregistered pipeline operator (\$[\w$]+)/.exec(error.message);
    if (stage?.[1] !== undefined) throw unavailableStage(stage[1], true);
    throw new MongoCommandError(ErrorCode.BadValue, error.message);
  }
}

export function rejectScripts(value: unknown): void {
  if (Array.isArray(value)) value.forEach(rejectScripts);
  else if (isDocument(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (SCRIPT_OPERATORS.includes(key)) throw notSupported(`the JavaScript operator ${key}`);
      rejectScripts(inner);
    }
  }
}

export interface CompiledFilter {
  /** The filter as the client sent it (typed), for the planner and explain. */
  readonly filter: Document;
  test(plainDoc: Document): boolean;
}

export function compileFilter(filter: Document, context: MingoContext = {}): CompiledFilter {
  assertComparable(filter, "a query filter");
  rejectScripts(filter);
  const query = translateMingoErrors(() => new Query(toPlain(filter) as Document, mingoOptions(context)));
  // An empty filter matches everything: no need to ask mingo once per document.
  if (Object.keys(filter).length === 0) return { filter, test: () => true };
  return { filter, test: (doc) => translateMingoErrors(() => query.test(doc)) };
}

export type SortSpec = ReadonlyArray<readonly [string, 1 | -1]>;

export function parseSort(sort: unknown): SortSpec {
  if (sort === undefined) return [];
  if (!isDocument(sort)) throw new MongoCommandError(ErrorCode.TypeMismatch, "Expected field sort to be of type object");
  return Object.entries(sort).map(([field, direction]) => {
    if (isDocument(direction)) throw notSupported(`sort by ${JSON.stringify(Object.keys(direction))} on '${field}'`);
    const n = isNumeric(direction) ? toNumber(direction) : NaN;
    if (n !== 1 && n !== -1)
      throw new MongoCommandError(LocationCode.IllegalSortKey, `Illegal key in $sort specification: ${field}: ${String(direction)}`);
    return [field, n] as const;
  });
}

/**
 * mongod's sort key of one field: the smallest element for ascending, the largest for descending;
 * null when missing, and for an empty array a key below null (undefined, see compareValues).
 */
function sortKey(plainDoc: Document, field: string, direction: 1 | -1): unknown {
  const values = valuesAtPath(plainDoc, field);
  values.forEach((value) => assertComparable(value, `the sort on '${field}'`));
  if (values.length === 0) return Array.isArray(valueAt(plainDoc, field.split("."))) ? undefined : null;
  return values.reduce((best, value) => (compareValues(value, best) * direction < 0 ? value : best));
}

/** A document's sort keys under a sort specification, one per sort field. */
export function sortKeys(plainDoc: Document, spec: SortSpec): unknown[] {
  return spec.map(([field, direction]) => sortKey(plainDoc, field, direction));
}

/** mongod's order of two documents' sort keys (from {@link sortKeys}). */
export function compareSortKeys(a: readonly unknown[], b: readonly unknown[], spec: SortSpec): number {
  for (let i = 0; i < spec.length; i++) {
    const order = compareValues(a[i], b[i]) * (spec[i]?.[1] ?? 1);
    if (order !== 0) return order;
  }
  return 0;
}
