import { ConfigError, readConfig, type Config } from "../config";
import { connectToDatabase, type DatabaseConnection } from "../db/connection";
import { selectDatabase, type SelectedDatabase } from "../db/select-database";
import { createLogger, type Logger } from "../logger";
import { DEMO_CATALOG, catalogSize, loadCatalog } from "../sales/demo-catalog";
import { startHttpServer, type RunningServer } from "../graphql/server";

/** `npm start`: the API on MONGODB_URI, or on an embedded database filled with demo data. */
async function main(): Promise<void> {
  const config = readConfigOrExit();
  const logger = createLogger(config.nodeEnv);
  const database = await selectDatabase(config.mongodbUri);
  logger.info(`Database: ${database.description}`);
  const connection = await connectToDatabase(database.uri, config.mongodbDb);
  if (database.kind !== "external") await loadDemoData(connection, config, logger);

  const server = await startHttpServer(
    { db: connection.db, settings: config, logger, production: config.nodeEnv === "production" },
    config.port,
  );
  logger.info(`Bookstore sales catalog ready at ${server.url}`);
  stopOnSignals(server, connection, database, logger);
}

function readConfigOrExit(): Config {
  try {
    return readConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

async function loadDemoData(connection: DatabaseConnection, config: Config, logger: Logger): Promise<void> {
  const started = Date.now();
  logger.info(`Loading demo data: the manual's 2 example books and ${DEMO_CATALOG.books} generated ones...`);
  const loaded = await loadCatalog(connection.db, DEMO_CATALOG, config, (progress) =>
    logger.debug(`demo data: ${progress.books}/${catalogSize(DEMO_CATALOG)} books`),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  logger.info(`Demo data loaded: ${loaded.books} books, ${loaded.purchases} purchases in ${seconds} s`);
}

function stopOnSignals(server: RunningServer, connection: DatabaseConnection, database: SelectedDatabase, logger: Logger): void {
  const stop = async (signal: string) => {
    logger.info(`${signal}: finishing requests in flight, then stopping`);
    await server.stop();
    await connection.close();
    await database.stop();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
