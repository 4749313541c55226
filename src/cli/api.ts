import { once } from "node:events";
import { createServer } from "node:net";
import { ConfigError, DEFAULT_OIDC_DEV_PORT, readConfig, type Config } from "../config";
import { driverTimeouts, openDatabase, type LiveDatabase } from "../db/connection";
import { selectDatabase, type SelectedDatabase } from "../db/select-database";
import { StartupError } from "../errors";
import { createLogger, type Logger } from "../logger";
import { DEMO_CATALOG, catalogSize, loadCatalog } from "../maintenance/demo-catalog";
import { ensureSalesIndexes } from "../sales/indexes";
import { startHttpServer, type RunningServer } from "../graphql/transport/server";
import { stopTracing } from "../observability/tracing";
import { startDevIssuer } from "../auth/dev-issuer";
import { shopperVerifier, type VerifyShopper } from "../auth/shoppers";

/**
 * The API on MONGODB_URI, or on a throwaway database filled with demo data. Each step
 * either retries until it succeeds (connecting, creating the indexes) or stops the process with a
 * message that names the cause and the fix (a StartupError).
 */
async function main(): Promise<void> {
  const config = readConfigOrExit();
  const logger = createLogger(config.nodeEnv);
  // Before the throwaway database and its demo data, which take seconds: a port in use is known at once.
  await checkPort(config);
  const verifyShopper = await shopperVerification(config, logger);
  // A throwaway database is a replica set: subscriptions need its change streams.
  const database = await selectDatabase(config.mongodbUri, { replicaSet: true, logger: logger.child({ component: "offline-mongo" }) });
  logger.info(`Database: ${database.description}`);
  // Command monitoring lets each request's log line and /metrics count the database commands it sent.
  // The server starts even while MongoDB is down: /readyz says 503 until it answers and the indexes are in place.
  const connection = openDatabase(database.uri, config.mongodbDb, {
    ensureIndexes: ensureSalesIndexes,
    monitorCommands: true,
    logger,
    ...driverTimeouts(config.requestTimeoutMs),
  });
  // From here on a signal stops the process cleanly, even while it still waits for the database.
  let server: RunningServer | undefined;
  const stopping = stopOnSignals(() => server, connection, database, logger);
  try {
    if (database.kind !== "external") await loadDemoData(connection, config, logger);
    server = await listen(connection, config, logger, verifyShopper);
    logger.info(`Bookstore sales catalog ready at ${server.url}`);
    if (database.kind !== "external")
      logger.info(`The tools reach this throwaway database while the API runs: MONGODB_URI=${database.uri} npm run report`);
    logAccess(config, logger);
  } catch (error) {
    // A signal's stop closed the database under the step that failed, and exits by itself.
    if (stopping()) return;
    // A throwaway database is a process of ours: leave none behind.
    await connection.close();
    await database.stop();
    throw error;
  }
}

async function listen(
  connection: LiveDatabase,
  config: Config,
  logger: Logger,
  verifyShopper: VerifyShopper | undefined,
): Promise<RunningServer> {
  const options = {
    verifyShopper,
    db: connection.db,
    settings: config,
    logger,
    production: config.nodeEnv === "production",
    apiTokens: config.apiTokens,
    trustedDocuments: config.trustedDocuments,
    requestTimeoutMs: config.requestTimeoutMs,
    indexesInPlace: connection.indexesInPlace,
    recoverable: connection.recoverable,
    cache: config,
    keepAliveTimeoutSeconds: config.keepAliveTimeoutSeconds,
    purchaseBatching: config,
    metricsOperations: config.metricsOperations,
    subscriptions: config,
    clientBudget: config,
    trustedProxies: config.trustedProxies,
  };
  try {
    return await startHttpServer(options, config.port, config.host);
  } catch (error) {
    throw portRefusal(config, error);
  }
}

/**
 * Who verifies shoppers' tokens: OIDC_ISSUER's keys; without it the development issuer, served on loopback until the
 * process exits; in production without it, no one (shoppers' tokens answer 401), said once here.
 */
async function shopperVerification(config: Config, logger: Logger): Promise<VerifyShopper | undefined> {
  const verifierFor = (issuer: string) =>
    shopperVerifier({
      issuer,
      audience: config.oidcAudience,
      customerClaim: config.oidcCustomerClaim,
      keysCooldownMs: config.oidcKeysCooldownSeconds * 1000,
    });
  if (config.oidcIssuer !== undefined) {
    logger.info({ issuer: config.oidcIssuer, audience: config.oidcAudience }, "Shoppers: access tokens from the OpenID Connect issuer");
    return verifierFor(config.oidcIssuer);
  }
  if (config.nodeEnv === "production") {
    logger.warn("OIDC_ISSUER is not set: shoppers cannot sign in, their tokens are refused (see docs/operations/configuration.md)");
    return undefined;
  }
  // The tests start many APIs at once, and only those testing shoppers name a port of their own.
  if (config.nodeEnv === "test" && config.oidcDevPort === undefined) return undefined;
  const port = config.oidcDevPort ?? DEFAULT_OIDC_DEV_PORT;
  try {
    const { issuer } = await startDevIssuer({ port, audience: config.oidcAudience });
    logger.info({ issuer }, `Shoppers: development issuer at ${issuer} (never in production); a token: npm run shopper-token -- user900`);
    return verifierFor(issuer);
  } catch (error) {
    // Another API on this machine serves it already (a second `npm start`, the tests' processes): this one goes on without shoppers.
    logger.warn({ err: error }, `The development issuer could not listen on 127.0.0.1:${port} (OIDC_DEV_PORT): shoppers are refused`);
    return undefined;
  }
}

/** Listens on the API's port and address for a moment, and fails as the server would if it cannot. */
async function checkPort(config: Config): Promise<void> {
  const probe = createServer();
  try {
    await once(probe.listen(config.port, config.host), "listening");
  } catch (error) {
    throw portRefusal(config, error);
  } finally {
    probe.close();
  }
}

/** The port's refusal in words, with the fix; any other error as it is. */
function portRefusal(config: Config, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return new StartupError(`Port ${config.port} is already in use`, "stop what listens there, or set PORT to a free port", {
      cause: error,
    });
  if (code === "EACCES")
    return new StartupError(`Port ${config.port} needs privileges this process lacks`, "set PORT to 1024 or above", { cause: error });
  return error;
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

function logAccess(config: Config, logger: Logger): void {
  const { level, message } = accessNotice(config);
  logger[level](config.apiTokens ? { tokens: config.apiTokens.map((token) => token.name) } : {}, message);
}

/**
 * What start-up says about who may reach the API. With tokens and no HOST it listens on every interface, which a
 * developer trying tokens on a laptop may not expect: the line says so and how to stay on this machine.
 * readConfig has already refused production without tokens, so "open" here always means development.
 */
export function accessNotice({ apiTokens, host }: Pick<Config, "apiTokens" | "host">): { level: "warn" | "info"; message: string } {
  if (apiTokens === undefined) {
    return {
      level: "warn",
      message: "API_TOKENS is not set: the API is open, anyone may read buyers and change the catalog (development only; see SECURITY.md)",
    };
  }
  const where =
    host === undefined
      ? "listening on every interface (HOST is unset), so other machines can reach it: set HOST=127.0.0.1 to keep it on this one"
      : `listening on ${host}`;
  return { level: "info", message: `Access: ${apiTokens.length} bearer token(s) configured; ${where}` };
}

/** The throwaway database starts empty: wait until it answers (a first connection on a busy machine can take several tries), then fill it. */
async function loadDemoData(connection: LiveDatabase, config: Config, logger: Logger): Promise<void> {
  await connection.ready();
  const started = Date.now();
  logger.info(`Loading demo data: the manual's 2 example books and ${DEMO_CATALOG.books} generated ones...`);
  try {
    const loaded = await loadCatalog(connection.db, DEMO_CATALOG, config, (progress) =>
      logger.debug(`demo data: ${progress.books}/${catalogSize(DEMO_CATALOG)} books`),
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    logger.info(`Demo data loaded: ${loaded.books} books, ${loaded.purchases} purchases in ${seconds} s`);
  } catch (error) {
    throw new StartupError(
      `Loading the demo catalog into the throwaway database failed (${(error as Error).message})`,
      "start again, since the throwaway database begins empty each time; or set MONGODB_URI to use a MongoDB of your own",
      { cause: error },
    );
  }
}

/**
 * On SIGTERM or SIGINT: stop accepting connections (if the server is up yet), let requests in flight
 * finish (Apollo's drain plugin gives them up to 10 s), then close the database and exit 0.
 * Later signals are ignored rather than taken as "force": npm relays the signal its pid receives to the
 * server it runs, and a terminal's Ctrl-C reaches both, so one stop often arrives here twice. SIGKILL
 * remains for forcing. Returns whether a stop has begun.
 */
function stopOnSignals(
  server: () => RunningServer | undefined,
  connection: LiveDatabase,
  database: SelectedDatabase,
  logger: Logger,
): () => boolean {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${signal}: no longer accepting connections, finishing requests in flight`);
    try {
      await server()?.stop();
      await connection.close();
      await database.stop();
      // The last requests' spans, still batched, leave before the process does; a collector that is away loses them, and stops nothing.
      await stopTracing().catch((error: unknown) => logger.warn({ err: error }, "the last spans could not be exported"));
      logger.info("shutdown complete");
      exitAfterFlush(logger, 0);
    } catch (error) {
      logger.error({ err: error }, "shutdown failed");
      exitAfterFlush(logger, 1);
    }
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return () => stopping;
}

// The pretty transport writes from a worker thread; exiting before it flushes would lose the last lines.
function exitAfterFlush(logger: Logger, status: number): void {
  logger.flush(() => process.exit(status));
}

/** Runs the API until a signal stops it (see `start.ts`, which loads this module once tracing, when asked for, is on). */
export function runApi(): void {
  main().catch((error: unknown) => {
    // A StartupError says what to do; anything else is a bug, whose stack is what helps.
    console.error(error instanceof StartupError ? error.message : error);
    process.exit(1);
  });
}
