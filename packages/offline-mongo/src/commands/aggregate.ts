import type { Document } from "bson";
import { ChangeStreamSource, checkFollowingStages, parseStreamOptions, scopeOf } from "../change-streams/streams";
import { arraySource, type ResultSource } from "../query-engine/cursors";
import { Aggregator, PIPELINE_STAGES } from "../language/mingo";
import { unavailableStage } from "../language/pipeline-stages";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";
import type { QueryExecution } from "../query-engine/planner";
import { mingoOptions, rejectScripts, translateMingoErrors } from "../language/query";
import type { Collection, StoredDocument } from "../query-engine/storage";
import {
  assertComparable,
  defaultTyped,
  documentArg,
  isDocument,
  isNumeric,
  optionalNumberArg,
  retype,
  toNumber,
  toPlain,
} from "../values/values";
import { collectionName, namespace, refuseOptions } from "./common";
import { readCountArguments } from "./pipeline-arguments";
import type { CommandContext, CommandDefinition } from "./context";
import { planRead, planSource, type Selection } from "./read";

const WRITING_STAGES = ["$out", "$merge"];

export const AGGREGATE_FIELDS = ["pipeline", "cursor", "explain", "allowDiskUse", "hint", "collation", "let", "bypassDocumentValidation"];

function validatePipeline(pipeline: unknown, context: CommandContext): Document[] {
  if (!Array.isArray(pipeline) || !pipeline.every(isDocument)) {
    throw new MongoCommandError(ErrorCode.TypeMismatch, "'pipeline' option must be specified as an array");
  }
  for (const stage of pipeline) {
    const name = Object.keys(stage)[0] ?? "";
    if (WRITING_STAGES.includes(name)) throw notSupported(`the ${name} aggregation stage`);
    if (!PIPELINE_STAGES.has(name)) throw unavailableStage(name, context.replicaSet !== undefined);
  }
  rejectScripts(pipeline);
  assertComparable(pipeline, "an aggregation pipeline");
  return readCountArguments(pipeline);
}

/** The pipeline's leading `$match` stages (merged), `$sort` and `$limit`, which mongod hands to its query planner, and the rest. */
function pushDown(pipeline: readonly Document[]): { selection: Selection; rest: Document[] } {
  let at = 0;
  const matches: Document[] = [];
  while (isDocument(pipeline[at]?.["$match"])) matches.push(pipeline[at++]?.["$match"] as Document);
  const sort = pipeline[at]?.["$sort"];
  if (isDocument(sort)) at++;
  // readCountArguments has made every limit a positive integer.
  const limit: unknown = pipeline[at]?.["$limit"];
  const limited = typeof limit === "number";
  if (limited) at++;
  const filter = matches.length <= 1 ? matches[0] : { $and: matches };
  return {
    selection: {
      ...(filter === undefined ? {} : { filter }),
      ...(isDocument(sort) ? { sort } : {}),
      ...(limited ? { limit } : {}),
    },
    rest: pipeline.slice(at),
  };
}

/**
 * Maps mingo's output back to typed BSON. Documents mingo passed through unchanged are the stored
 * plain views, found by identity; a reshaped document takes each number's type from the stored
 * document with the same `_id`; computed numbers get the type bson gives a JS number.
 */
function typedResults(collection: Collection | undefined, typedOf: WeakMap<object, Document>, results: readonly Document[]): Document[] {
  const restore = (value: unknown, typed: unknown): unknown => {
    if (isDocument(value)) {
      const known = typedOf.get(value);
      if (known) return known;
      const reference = isDocument(typed) ? typed : "_id" in value ? collection?.findById(value["_id"])?.doc : undefined;
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

function remember(typedOf: WeakMap<object, Document>, records: readonly StoredDocument[]): Document[] {
  return records.map((record) => {
    typedOf.set(record.plain, record.doc);
    return record.plain;
  });
}

/** `{$group: {_id: <constant>, <field>: {$sum: 1}}}`, the driver's countDocuments: its `_id` and field name. */
function countingGroup(rest: readonly Document[]): { id: unknown; field: string } | undefined {
  const [group, ...others] = rest;
  const spec: unknown = group?.["$group"];
  if (others.length > 0 || Object.keys(group ?? {}).length !== 1 || !isDocument(spec)) return undefined;
  const { _id: id, ...accumulators } = spec;
  const [entry, ...more] = Object.entries(accumulators);
  if (entry === undefined || more.length > 0) return undefined;
  const [field, accumulator] = entry;
  const constant = id === null || isNumeric(id) || (typeof id === "string" && !id.startsWith("$"));
  const countsOne =
    isDocument(accumulator) &&
    Object.keys(accumulator).length === 1 &&
    isNumeric(accumulator["$sum"]) &&
    toNumber(accumulator["$sum"]) === 1;
  return constant && countsOne ? { id, field } : undefined;
}

/** Counts the plan's results without handing them to mingo: one group, or none when nothing matched, as mongod's $group. */
function countResults(execution: QueryExecution, group: { id: unknown; field: string }): Document[] {
  let n = 0;
  while (execution.next() !== undefined) n++;
  return n === 0 ? [] : [{ _id: group.id, [group.field]: defaultTyped(n) }];
}

/** An aggregate's plan (for its pushed-down prefix) and how to produce the rest of its results. */
export function planAggregate(
  body: Document,
  context: CommandContext,
): { execution: QueryExecution; rest: Document[]; source: () => ResultSource; name: string; filter: Document } {
  if (typeof body["aggregate"] !== "string") throw notSupported("database-level aggregation ({aggregate: 1})");
  const name = collectionName(body, "aggregate");
  refuseOptions(body, "aggregate", ["collation", "let"]);
  const pipeline = validatePipeline(body["pipeline"], context);
  const { selection, rest } = pushDown(pipeline);
  const execution = planRead(context, name, "aggregate", { ...selection, hint: body["hint"] });
  const source = (): ResultSource => {
    if (rest.length === 0) return planSource(execution, (doc) => doc);
    const counting = countingGroup(rest);
    if (counting !== undefined) return arraySource(countResults(execution, counting));
    const typedOf = new WeakMap<object, Document>();
    const resolver = (other: string): Document[] => remember(typedOf, context.storage.existingCollection(context.db, other)?.all() ?? []);
    const input = remember(typedOf, execution.drain());
    const results = translateMingoErrors(() =>
      new Aggregator(
        rest.map((stage) => toPlain(stage) as Document),
        mingoOptions({ collectionResolver: resolver }),
      ).run(input),
    );
    return arraySource(typedResults(context.storage.existingCollection(context.db, name), typedOf, results));
  };
  return { execution, rest, source, name, filter: isDocument(selection.filter) ? selection.filter : {} };
}

/** A `$changeStream` aggregate: mongod's errors where it refuses one, else the stream's cursor source and namespace. */
function openChangeStream(
  body: Document,
  pipeline: readonly Document[],
  context: CommandContext,
): { source: ChangeStreamSource; ns: string } {
  const history = context.transactions.history;
  if (context.replicaSet === undefined || history === undefined) throw unavailableStage("$changeStream", false);
  if (context.inTransaction)
    throw new MongoCommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      "Operation not permitted in transaction :: caused by :: $changeStream cannot run in a multi-document transaction",
    );
  refuseOptions(body, "aggregate", ["collation", "let"]);
  const [stage, ...rest] = pipeline;
  const options = parseStreamOptions(stage?.["$changeStream"]);
  const scope = scopeOf(context.db, body["aggregate"], options);
  const source = new ChangeStreamSource(history, context.transactions.live, scope, options, checkFollowingStages(rest));
  return { source, ns: scope.kind === "collection" ? namespace(context, scope.coll) : `${context.db}.$cmd.aggregate` };
}

const aggregate: CommandDefinition = {
  names: ["aggregate"],
  fields: AGGREGATE_FIELDS,
  run(body, context) {
    if (body["explain"] !== undefined && body["explain"] !== false)
      throw notSupported("aggregate's explain option (send the explain command)");
    if (body["cursor"] === undefined) {
      throw new MongoCommandError(
        ErrorCode.FailedToParse,
        "The 'cursor' option is required, except for aggregate with the explain argument",
      );
    }
    const cursorOptions = documentArg("aggregate", "cursor", body["cursor"]);
    const batchSize = optionalNumberArg("aggregate", "cursor.batchSize", cursorOptions["batchSize"]) ?? 101;
    const pipeline: unknown = body["pipeline"];
    if (Array.isArray(pipeline) && isDocument(pipeline[0]) && "$changeStream" in pipeline[0]) {
      const { source, ns } = openChangeStream(body, pipeline as Document[], context);
      return { cursor: context.cursors.open(ns, source, batchSize, false), ok: 1 };
    }
    const { source, name } = planAggregate(body, context);
    return { cursor: context.cursors.open(namespace(context, name), source(), batchSize, false), ok: 1 };
  },
};

export const aggregateCommands: readonly CommandDefinition[] = [aggregate];
