import pino from "pino";
import { readConfig } from "../../src/config";
import { connectToDatabase } from "../../src/db/connection";
import { startHttpServer } from "../../src/graphql/transport/server";

/**
 * The API alone in a process of its own, as production runs it (command monitoring on, since
 * /metrics counts commands), on MONGODB_URI and MONGODB_DB; prints its URL once it listens.
 * The bench starts it so that the API's CPU is not shared with the database's or the load's.
 */
async function main(): Promise<void> {
  const config = readConfig();
  if (!config.mongodbUri) throw new Error("MONGODB_URI must be set");
  const { db } = await connectToDatabase(config.mongodbUri, config.mongodbDb, { monitorCommands: true });
  // With the cache settings production runs with: the listings with buyers are private, and without a token never cached.
  const options = {
    db,
    settings: config,
    cache: config,
    logger: pino({ level: "silent" }),
    production: true,
    apiTokens: config.apiTokens,
    clientBudget: config,
    // The subscription limits the environment sets (the subscribers section raises the per-address and per-process caps: its loads connect from one address).
    subscriptions: config,
  };
  const server = await startHttpServer(options, 0, "127.0.0.1");
  process.stdout.write(`${server.url}\n`);
  process.once("SIGTERM", () => void server.stop().then(() => process.exit(0)));
}

void main().catch((error: unknown) => {
  process.stderr.write(`api-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
