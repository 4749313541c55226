import { Long, type Document } from "bson";
import { DEFAULT_AWAIT_DATA_MS, DEFAULT_FIRST_BATCH, type ResultSource } from "../query-engine/cursors";
import { ErrorCode, LocationCode, MongoCommandError } from "../errors";
import { valuesAtPath } from "../values/paths";
import { compileProjection } from "../language/projection";
import { planQuery, refusesTableScan, type QueryExecution } from "../query-engine/planner";
import { Count } from "../query-engine/stages";
import { compileFilter, parseSort } from "../language/query";
import type { StoredDocument } from "../query-engine/storage";
import { compareValues } from "../values/compare";
import {
  assertComparable,
  canonicalKey,
  documentArg,
  isDocument,
  isNumeric,
  isTruthy,
  optionalNumberArg,
  stringArg,
  toNumber,
  toPlain,
} from "../values/values";
import { resolveHint, collectionName, collectionResolver, namespace, refuseFlags, refuseOptions } from "./common";
import type { CommandContext, CommandDefinition } from "./context";

export interface Selection {
  readonly filter?: unknown;
  readonly sort?: unknown;
  readonly skip?: number;
  readonly limit?: number;
  readonly hint?: unknown;
  /** For a count: a plan may count index keys without fetching documents. */
  readonly countOnly?: boolean;
}

/** Plans a read; running the plan yields records in mongod's order (sorted, else the plan's own order). */
export function planRead(context: CommandContext, collection: string, command: string, selection: Selection): QueryExecution {
  const compiled = compileFilter(selection.filter === undefined ? {} : documentArg(command, "filter", selection.filter), {
    collectionResolver: collectionResolver(context),
  });
  const sort = parseSort(selection.sort);
  const stored = context.storage.existingCollection(context.db, collection);
  const hint = resolveHint(stored, selection.hint);
  const skip = selection.skip ?? 0;
  if (skip < 0)
    throw new MongoCommandError(LocationCode.NegativeCountArgument, `BSON field 'skip' value must be >= 0, actual value '${skip}'`);
  const limit = selection.limit === undefined || selection.limit === 0 ? undefined : Math.abs(selection.limit);
  const notablescan = refusesTableScan(context.parameters.notablescan, context.db, collection, compiled.filter);
  return planQuery(
    stored,
    { filter: compiled.filter, test: compiled.test, sort, skip, limit, hint, countOnly: selection.countOnly ?? false },
    { notablescan },
  );
}

/** Every record a read selects, for commands that must see them all before acting (writes, distinct). */
export function select(context: CommandContext, collection: string, command: string, selection: Selection): StoredDocument[] {
  return planRead(context, collection, command, selection).drain();
}

export const FIND_FIELDS = [
  "filter",
  "sort",
  "projection",
  "skip",
  "limit",
  "batchSize",
  "singleBatch",
  "hint",
  "collation",
  "let",
  "allowDiskUse",
  "noCursorTimeout",
  "allowPartialResults",
  "tailable",
  "awaitData",
  "returnKey",
  "showRecordId",
  "min",
  "max",
];

/** A find's `skip`, `limit` or `batchSize` as mongod's command parser reads it: any number, truncated, never negative. */
function findCount(field: string, value: unknown): number | undefined {
  const n = optionalNumberArg("find", field, value);
  if (n === undefined) return undefined;
  const count = Math.trunc(n);
  if (count < 0)
    throw new MongoCommandError(LocationCode.NegativeCountArgument, `BSON field '${field}' value must be >= 0, actual value '${count}'`);
  return count;
}

/** A find command's plan and how to shape its results, shared by `find` and `explain`. */
export function planFind(
  body: Document,
  context: CommandContext,
): { execution: QueryExecution; project: (doc: Document) => Document; collection: string } {
  const collection = collectionName(body, "find");
  refuseOptions(body, "find", ["collation", "let", "min", "max"]);
  refuseFlags(body, "find", ["tailable", "awaitData", "returnKey", "showRecordId"]);
  const projection = compileProjection(
    body["projection"] === undefined ? undefined : documentArg("find", "projection", body["projection"]),
  );
  const execution = planRead(context, collection, "find", {
    filter: body["filter"],
    sort: body["sort"],
    skip: findCount("skip", body["skip"]),
    limit: findCount("limit", body["limit"]),
    hint: body["hint"],
  });
  return { execution, project: (doc) => (projection ? projection.apply(doc) : doc), collection };
}

/** A cursor source that runs the plan only as far as each batch needs. */
export function planSource(execution: QueryExecution, project: (doc: Document) => Document): ResultSource {
  return {
    next: () => {
      const record = execution.next();
      return record === undefined ? undefined : project(record.doc);
    },
  };
}

const find: CommandDefinition = {
  names: ["find"],
  fields: FIND_FIELDS,
  run(body, context) {
    const { execution, project, collection } = planFind(body, context);
    const batchSize = findCount("batchSize", body["batchSize"]) ?? DEFAULT_FIRST_BATCH;
    const singleBatch = isTruthy(body["singleBatch"]);
    return { cursor: context.cursors.open(namespace(context, collection), planSource(execution, project), batchSize, singleBatch), ok: 1 };
  },
};

const getMore: CommandDefinition = {
  names: ["getMore"],
  fields: ["collection", "batchSize", "term", "lastKnownCommittedOpTime"],
  run(body, context) {
    const raw = body["getMore"];
    if (!isNumeric(raw))
      throw new MongoCommandError(ErrorCode.TypeMismatch, "BSON field 'getMore.getMore' is the wrong type, expected type 'long'");
    const id = raw instanceof Long ? raw : Long.fromNumber(toNumber(raw));
    const collection = stringArg("getMore", "collection", body["collection"]);
    const batchSize = optionalNumberArg("getMore", "batchSize", body["batchSize"]) ?? Number.MAX_SAFE_INTEGER;
    // On an awaitData cursor, maxTimeMS is how long an empty getMore waits (the driver's maxAwaitTimeMS).
    const wait = optionalNumberArg("getMore", "maxTimeMS", body["maxTimeMS"]) || DEFAULT_AWAIT_DATA_MS;
    const deadline = context.awaitDeadline ?? Date.now() + wait;
    // Once, when the getMore first arrives (not again when it is answered after waiting for data).
    const changeStream = context.cursors.isTailing(id);
    const failure =
      context.awaitDeadline === undefined && changeStream !== undefined ? context.failPoints?.getMoreError(changeStream) : undefined;
    if (failure !== undefined) throw failure;
    return { cursor: context.cursors.getMore(id, namespace(context, collection), batchSize || Number.MAX_SAFE_INTEGER, deadline), ok: 1 };
  },
};

const killCursors: CommandDefinition = {
  names: ["killCursors"],
  fields: ["cursors"],
  run(body, context) {
    collectionName(body, "killCursors");
    const ids = Array.isArray(body["cursors"]) ? body["cursors"].filter(isNumeric) : [];
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const raw of ids) {
      const id = raw instanceof Long ? raw : Long.fromNumber(toNumber(raw));
      (context.cursors.kill(id) ? killed : notFound).push(id);
    }
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  },
};

export const COUNT_FIELDS = ["query", "skip", "limit", "hint", "collation", "fields"];

/** A count answered from the collection's size, as mongod's RECORD_STORE_FAST_COUNT: no query and no hint. */
export function isFastCount(body: Document): boolean {
  const query = body["query"];
  return (query === undefined || (isDocument(query) && Object.keys(query).length === 0)) && body["hint"] === undefined;
}

/** A count's skip (never negative) and limit (either sign; 0 is none), as mongod reads them. */
export function countBounds(body: Document): { skip: number; limit: number | undefined } {
  const skip = optionalNumberArg("count", "skip", body["skip"]) ?? 0;
  if (skip < 0)
    throw new MongoCommandError(LocationCode.NegativeCountArgument, `BSON field 'skip' value must be >= 0, actual value '${skip}'`);
  const limit = Math.abs(optionalNumberArg("count", "limit", body["limit"]) ?? 0);
  return { skip, limit: limit === 0 ? undefined : limit };
}

/** A count with a query: mongod's COUNT stage over the query's plan (skip and limit apply to the matches). */
export function planCount(body: Document, context: CommandContext): Count {
  const collection = collectionName(body, "count");
  refuseOptions(body, "count", ["collation"]);
  const { skip, limit } = countBounds(body);
  return new Count(planRead(context, collection, "count", { filter: body["query"], hint: body["hint"], countOnly: true }), skip, limit);
}

/** A count without a query or hint, answered from the collection's size as mongod's RECORD_STORE_FAST_COUNT. */
export function fastCount(body: Document, context: CommandContext): number {
  const collection = collectionName(body, "count");
  refuseOptions(body, "count", ["collation"]);
  const { skip, limit } = countBounds(body);
  const afterSkip = Math.max(0, (context.storage.existingCollection(context.db, collection)?.size ?? 0) - skip);
  return limit === undefined ? afterSkip : Math.min(afterSkip, limit);
}

const count: CommandDefinition = {
  names: ["count"],
  fields: COUNT_FIELDS,
  run(body, context) {
    return { n: isFastCount(body) ? fastCount(body, context) : planCount(body, context).total(), ok: 1 };
  },
};

/** mongod collects distinct values in an ordered set, so it answers them sorted in BSON order. */
function inBsonOrder(values: readonly unknown[], where: string): unknown[] {
  const keyed = values.map((value) => {
    assertComparable(value, where);
    return { value, plain: toPlain(value) };
  });
  return keyed.sort((a, b) => compareValues(a.plain, b.plain)).map(({ value }) => value);
}

const distinct: CommandDefinition = {
  names: ["distinct"],
  fields: ["key", "query", "hint", "collation"],
  run(body, context) {
    const collection = collectionName(body, "distinct");
    refuseOptions(body, "distinct", ["collation"]);
    const key = stringArg("distinct", "key", body["key"]);
    const records = select(context, collection, "distinct", { filter: body["query"], hint: body["hint"] });
    const values = new Map<string, unknown>();
    for (const record of records) {
      for (const value of valuesAtPath(record.doc, key)) {
        // mongod's distinct skips missing fields but keeps explicit nulls.
        if (value !== undefined && !values.has(canonicalKey(value))) values.set(canonicalKey(value), value);
      }
    }
    return { values: inBsonOrder([...values.values()], `distinct '${key}'`), ok: 1 };
  },
};

export const readCommands: readonly CommandDefinition[] = [find, getMore, killCursors, count, distinct];
