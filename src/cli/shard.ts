import { MongoServerError } from "mongodb";
import { applyShardKeys, SHARD_KEYS } from "../sales/shard-keys";
import { parseFlags, runToolAsMain, ToolFailure, withDatabase, type ToolDefinition } from "./tool";

const USAGE = `Usage: npm run shard

Shards the collections the API writes in the database MONGODB_DB names, through the mongos MONGODB_URI
names, each on the key docs/operations/sharding.md gives: ${Object.entries(SHARD_KEYS)
  .map(([collection, key]) => `${collection} on ${JSON.stringify(key)}`)
  .join(", ")}. Safe to run again: a collection already sharded on its key is left as it is; one sharded on
another key fails with mongos's own error. Run it before the first write: on a collection that already
holds documents, mongos first needs an index on the key (e.g. db.sales.createIndex({_id: "hashed"})).`;

export const shardTool: ToolDefinition = {
  usage: USAGE,
  async run(args, env, output) {
    parseFlags(args, {});
    await withDatabase(env, "npm run shard", async ({ client }, config) => {
      const outcomes = await applyShardKeys(client, config.mongodbDb).catch((error: unknown) => {
        throw explained(error);
      });
      for (const { namespace, outcome } of outcomes) output.out(`${outcome} ${namespace}`);
    });
  },
};

/** mongos's refusals that a person must act on, with what to do. */
function explained(error: unknown): unknown {
  if (!(error instanceof MongoServerError)) return error;
  if (error.code === 59) {
    return new ToolFailure(
      `The server at MONGODB_URI does not know shardCollection (${error.message}): it is not a mongos. Point MONGODB_URI at the cluster's mongos.`,
    );
  }
  if (error.code === 23) {
    return new ToolFailure(
      `${error.message}: a collection is already sharded on another key. This command never reshards; see docs/operations/sharding.md before running reshardCollection.`,
    );
  }
  return error;
}

if (require.main === module) runToolAsMain(shardTool);
