import type { Document } from "bson";
import { Aggregator } from "../mingo";
import { MongoCommandError, notSupported } from "../errors";
import { compileFilter, mingoOptions, rejectScripts, translateMingoErrors } from "../query";
import { assertComparable, canonicalKey, documentArg, isDocument, optionalNumberArg, retype, toPlain } from "../values";
import { collectionName, checkHint, collectionResolver, namespace, refuseOptions } from "./common";
import type { CommandContext, CommandDefinition } from "./context";

const WRITING_STAGES = ["$out", "$merge"];

function validatePipeline(pipeline: unknown): Document[] {
  if (!Array.isArray(pipeline) || !pipeline.every(isDocument)) {
    throw new MongoCommandError(14, "'pipeline' option must be specified as an array");
  }
  for (const stage of pipeline) {
    const name = Object.keys(stage)[0] ?? "";
    if (WRITING_STAGES.includes(name)) throw notSupported(`the ${name} aggregation stage`);
  }
  rejectScripts(pipeline);
  assertComparable(pipeline, "an aggregation pipeline");
  return pipeline;
}

/**
 * Maps mingo's output back to typed BSON. Documents mingo passed through unchanged are the stored
 * plain views, found by identity; a reshaped document takes each number's type from the stored
 * document with the same `_id`; computed numbers get the type bson gives a JS number.
 */
function typedResults(context: CommandContext, collection: string, results: readonly Document[]): Document[] {
  const typedOf = new WeakMap<object, Document>();
  const byId = new Map<string, Document>();
  for (const database of [context.storage.database(context.db)]) {
    for (const stored of database.collections.values()) {
      for (const record of stored.all()) {
        typedOf.set(record.plain, record.doc);
        if (stored.name === collection) byId.set(canonicalKey(record.doc["_id"]), record.doc);
      }
    }
  }
  const restore = (value: unknown, typed: unknown): unknown => {
    if (isDocument(value)) {
      const known = typedOf.get(value);
      if (known) return known;
      const reference = isDocument(typed) ? typed : "_id" in value ? byId.get(canonicalKey(value["_id"])) : undefined;
      // mongod's stages emit _id first, whatever order mingo built the document in.
      const { _id: id, ...rest } = value;
      const ordered = id === undefined ? rest : { _id: id, ...rest };
      return Object.fromEntries(Object.entries(ordered).map(([key, inner]) => [key, restore(inner, reference?.[key])]));
    }
    if (Array.isArray(value)) return value.map((inner, i) => restore(inner, Array.isArray(typed) ? typed[i] : undefined));
    return retype(value, typed);
  };
  return results.map((doc) => restore(doc, undefined) as Document);
}

const aggregate: CommandDefinition = {
  names: ["aggregate"],
  fields: ["pipeline", "cursor", "explain", "allowDiskUse", "hint", "collation", "let", "bypassDocumentValidation"],
  run(body, context) {
    if (typeof body["aggregate"] !== "string") throw notSupported("database-level aggregation ({aggregate: 1})");
    const name = collectionName(body, "aggregate");
    refuseOptions(body, "aggregate", ["collation", "let", "explain"]);
    if (body["cursor"] === undefined) {
      throw new MongoCommandError(9, "The 'cursor' option is required, except for aggregate with the explain argument");
    }
    const cursorOptions = documentArg("aggregate", "cursor", body["cursor"]);
    const pipeline = validatePipeline(body["pipeline"]);
    const collection = context.storage.existingCollection(context.db, name);
    checkHint(collection, body["hint"]);
    const resolver = collectionResolver(context);
    // A leading $match can use the indexes like find does.
    const [first, ...rest] = pipeline;
    const leadingMatch = first !== undefined && isDocument(first["$match"]) ? first["$match"] : undefined;
    const source = leadingMatch
      ? (collection?.find(compileFilter(leadingMatch, { collectionResolver: resolver })) ?? []).map((record) => record.plain)
      : (collection?.all() ?? []).map((record) => record.plain);
    const stages = leadingMatch ? rest : pipeline;
    const results = translateMingoErrors(() =>
      new Aggregator(stages.map((stage) => toPlain(stage) as Document), mingoOptions({ collectionResolver: resolver })).run(source),
    );
    const batchSize = optionalNumberArg("aggregate", "cursor.batchSize", cursorOptions["batchSize"]) ?? 101;
    const typed = typedResults(context, name, results);
    return { cursor: context.cursors.open(namespace(context, name), typed, batchSize, false), ok: 1 };
  },
};

export const aggregateCommands: readonly CommandDefinition[] = [aggregate];
