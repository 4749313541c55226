import { Long } from "bson";
import { DEFAULT_FIRST_BATCH } from "../cursors";
import { MongoCommandError } from "../errors";
import { valuesAtPath } from "../paths";
import { compileProjection } from "../projection";
import { compileFilter, parseSort, sortDocuments } from "../query";
import type { StoredDocument } from "../storage";
import { compareValues } from "../compare";
import { assertComparable, canonicalKey, documentArg, isNumeric, isTruthy, optionalNumberArg, stringArg, toNumber, toPlain } from "../values";
import { checkHint, collectionName, collectionResolver, namespace, refuseFlags, refuseOptions } from "./common";
import type { CommandContext, CommandDefinition } from "./context";

interface Selection {
  readonly filter?: unknown;
  readonly sort?: unknown;
  readonly skip?: number;
  readonly limit?: number;
  readonly hint?: unknown;
}

/** The records a read selects, in mongod's order: sorted, else natural (insertion) order. */
export function select(context: CommandContext, collection: string, command: string, selection: Selection): StoredDocument[] {
  const filter = compileFilter(selection.filter === undefined ? {} : documentArg(command, "filter", selection.filter), {
    collectionResolver: collectionResolver(context),
  });
  const sort = parseSort(selection.sort);
  const stored = context.storage.existingCollection(context.db, collection);
  checkHint(stored, selection.hint);
  const skip = selection.skip ?? 0;
  if (skip < 0) throw new MongoCommandError(51024, `BSON field 'skip' value must be >= 0, actual value '${skip}'`);
  const sorted = sortDocuments(stored?.find(filter) ?? [], sort, (record) => record.plain);
  const limit = selection.limit === undefined || selection.limit === 0 ? undefined : Math.abs(selection.limit);
  return sorted.slice(skip, limit === undefined ? undefined : skip + limit);
}

const find: CommandDefinition = {
  names: ["find"],
  fields: [
    "filter", "sort", "projection", "skip", "limit", "batchSize", "singleBatch", "hint", "collation", "let",
    "allowDiskUse", "noCursorTimeout", "allowPartialResults", "tailable", "awaitData", "returnKey", "showRecordId", "min", "max",
  ],
  run(body, context) {
    const collection = collectionName(body, "find");
    refuseOptions(body, "find", ["collation", "let", "min", "max"]);
    refuseFlags(body, "find", ["tailable", "awaitData", "returnKey", "showRecordId"]);
    const projection = compileProjection(body["projection"] === undefined ? undefined : documentArg("find", "projection", body["projection"]));
    const limit = optionalNumberArg("find", "limit", body["limit"]);
    const records = select(context, collection, "find", {
      filter: body["filter"],
      sort: body["sort"],
      skip: optionalNumberArg("find", "skip", body["skip"]),
      limit,
      hint: body["hint"],
    });
    const results = records.map((record) => (projection ? projection.apply(record.doc) : record.doc));
    const batchSize = optionalNumberArg("find", "batchSize", body["batchSize"]) ?? DEFAULT_FIRST_BATCH;
    const singleBatch = isTruthy(body["singleBatch"]) || (limit !== undefined && limit < 0);
    return { cursor: context.cursors.open(namespace(context, collection), results, batchSize, singleBatch), ok: 1 };
  },
};

const getMore: CommandDefinition = {
  names: ["getMore"],
  fields: ["collection", "batchSize"],
  run(body, context) {
    const raw = body["getMore"];
    if (!isNumeric(raw)) throw new MongoCommandError(14, "BSON field 'getMore.getMore' is the wrong type, expected type 'long'");
    const id = raw instanceof Long ? raw : Long.fromNumber(toNumber(raw));
    const collection = stringArg("getMore", "collection", body["collection"]);
    const batchSize = optionalNumberArg("getMore", "batchSize", body["batchSize"]) ?? Number.MAX_SAFE_INTEGER;
    return { cursor: context.cursors.getMore(id, namespace(context, collection), batchSize || Number.MAX_SAFE_INTEGER), ok: 1 };
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

const count: CommandDefinition = {
  names: ["count"],
  fields: ["query", "skip", "limit", "hint", "collation", "fields"],
  run(body, context) {
    const collection = collectionName(body, "count");
    refuseOptions(body, "count", ["collation"]);
    const records = select(context, collection, "count", {
      filter: body["query"],
      skip: optionalNumberArg("count", "skip", body["skip"]),
      limit: optionalNumberArg("count", "limit", body["limit"]),
      hint: body["hint"],
    });
    return { n: records.length, ok: 1 };
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
