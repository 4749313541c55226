import { applyShardKeys, SHARD_KEYS } from "../sales/shard-keys";
import { parseFlags, runToolAsMain, withDatabase, type ToolDefinition } from "./tool";

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
      for (const namespace of await applyShardKeys(client, config.mongodbDb)) output.out(`sharded ${namespace}`);
    });
  },
};

if (require.main === module) runToolAsMain(shardTool);
