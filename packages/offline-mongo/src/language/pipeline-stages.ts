import { LocationCode, MongoCommandError, notSupported } from "../errors";

/** The aggregation stages mongod 7.0 registers for clients (its `$_internal…` stages aside). */
const MONGOD_STAGES = new Set([
  "$addFields",
  "$bucket",
  "$bucketAuto",
  "$changeStream",
  "$changeStreamSplitLargeEvent",
  "$collStats",
  "$count",
  "$currentOp",
  "$densify",
  "$documents",
  "$facet",
  "$fill",
  "$geoNear",
  "$graphLookup",
  "$group",
  "$indexStats",
  "$limit",
  "$listCachedAndActiveUsers",
  "$listCatalog",
  "$listLocalSessions",
  "$listSampledQueries",
  "$listSearchIndexes",
  "$listSessions",
  "$lookup",
  "$match",
  "$merge",
  "$out",
  "$planCacheStats",
  "$project",
  "$queryStats",
  "$redact",
  "$replaceRoot",
  "$replaceWith",
  "$sample",
  "$search",
  "$searchMeta",
  "$set",
  "$setWindowFields",
  "$shardedDataDistribution",
  "$skip",
  "$sort",
  "$sortByCount",
  "$unionWith",
  "$unset",
  "$unwind",
  "$vectorSearch",
]);

/** Whether mongod 7.0 knows a stage by this name (else it answers 40324 Unrecognized pipeline stage name). */
export function isMongodStage(name: string): boolean {
  return MONGOD_STAGES.has(name);
}

/** Atlas Search's stages: a mongod without a search server (mongot) answers them all alike. */
const SEARCH_STAGES = new Set(["$search", "$searchMeta", "$vectorSearch", "$listSearchIndexes"]);

/**
 * mongod's answer to a stage this server does not run: its own error where it has one (a change stream on a
 * standalone or past the first stage, search without Atlas, a name it does not know), else the stand-in's refusal (238).
 */
export function unavailableStage(name: string, onReplicaSet: boolean): MongoCommandError {
  if (name === "$changeStream" && !onReplicaSet)
    return new MongoCommandError(LocationCode.ChangeStreamNeedsReplicaSet, "The $changeStream stage is only supported on replica sets");
  // A change stream is opened by its aggregate's first stage (see `change-streams/streams.ts`); anywhere else mongod refuses it.
  if (name === "$changeStream")
    return new MongoCommandError(LocationCode.ChangeStreamNotFirstStage, "$changeStream is only valid as the first stage in a pipeline");
  if (SEARCH_STAGES.has(name)) return new MongoCommandError(LocationCode.AtlasOnlyStage, `${name} stage is only allowed on MongoDB Atlas`);
  if (MONGOD_STAGES.has(name)) return notSupported(`the ${name} aggregation stage`);
  return new MongoCommandError(LocationCode.UnrecognizedPipelineStage, `Unrecognized pipeline stage name: '${name}'`);
}
