import { once } from "node:events";
import http from "node:http";
import { isIPv6, type AddressInfo } from "node:net";
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { ApolloServerPluginDrainHttpServer } from "@apollo/server/plugin/drainHttpServer";
import { ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { ApolloServerPluginLandingPageLocalDefault } from "@apollo/server/plugin/landingPage/default";
import compress from "@fastify/compress";
import cors from "@fastify/cors";
import etag from "@fastify/etag";
import fastify, { type FastifyInstance, type FastifyRequest, type RouteHandlerMethod } from "fastify";
import type { Db } from "mongodb";
import type { Logger } from "pino";
import { callerOfRequests } from "../../auth/principal";
import type { VerifyShopper } from "../../auth/shoppers";
import type { ConfiguredToken } from "../../auth/tokens";
import type { TrustedDocuments } from "../../auth/trusted-documents";
import {
  DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_CLIENT_BUDGET,
  DEFAULT_SUBSCRIPTION_SETTINGS,
  type ApiSettings,
  type ClientBudgetSettings,
  type CacheSettings,
  type PurchaseSharingSettings,
  type SubscriptionSettings,
} from "../../config";
import { createServerMetrics, type ServerMetrics } from "../../observability/metrics";
import { countDatabaseCommands, requestContextHook } from "../../observability/request-context";
import { operationalRoutes } from "../../observability/operational-routes";
import { requestLogPlugin } from "../../observability/request-log-plugin";
import { embeddedBuyersPlugin } from "../execution/embedded-buyers";
import { cachingPlugins, openResponseCache, varyByAuthorization, type Caching } from "../caching/caching";
import { countOutliers } from "../../sales/stats";
import { createServerState, releaseServicesPlugin, type GraphQLContext } from "../execution/context";
import { createErrorFormatter } from "../execution/errors";
import { MAX_JSON_DEPTH, refuseDeepJson, refuseNonJsonPosts, requestErrors, requestTimeLimit, undecompressable } from "../limits/http";
import { createClientBudget, type ClientBudget } from "../limits/client-budget";
import { parseOptions, REQUEST_LIMITS } from "../limits/operation";
import { operationPipelinePlugin, validationRules } from "../execution/pipeline";
import { compiledSchema, schema } from "../schema/schema";
import { compiledExecution } from "../execution/compiled-execution";
import { graphqlHandler } from "./http-handler";
import { serveSubscriptions } from "./subscriptions";

export interface ServerOptions {
  db: Db;
  settings: ApiSettings;
  logger: Logger;
  production: boolean;
  /** The bearer tokens callers may present; undefined leaves every field open, as development without API_TOKENS does. */
  apiTokens?: readonly ConfiguredToken[];
  /** Verifies shoppers' tokens (OIDC_ISSUER, or the development issuer); undefined accepts no shopper. */
  verifyShopper?: VerifyShopper | undefined;
  /** The only operations tokens marked `trustedDocumentsOnly` may run, by hash. */
  trustedDocuments?: TrustedDocuments;
  /** How long a request may run before it is answered with REQUEST_TIMEOUT; default 10 s. */
  requestTimeoutMs?: number;
  /** False while the database's indexes are not known to be in place (see `openDatabase`); /readyz answers 503 then. Absent: they are. */
  indexesInPlace?: () => boolean;
  /** False when the process cannot recover its database connection by itself (see `watchConnection`); /healthz answers 503 then, for a supervisor to restart it. Absent: it can. */
  recoverable?: () => boolean;
  /** Only the benchmark turns this off, to measure the N+1 queries that batching avoids. */
  batchLoads?: boolean;
  /** How long public answers may be cached, and where; absent: nothing is cached (every answer says `no-store`). */
  cache?: CacheSettings;
  /** How long an idle keep-alive connection stays open; default 65 s, above common load balancers' 60 s. */
  keepAliveTimeoutSeconds?: number;
  /** Whether concurrent purchases of one outlier share their writes, and how many per write; default on, 100. */
  purchaseBatching?: PurchaseSharingSettings;
  /** Operation names that always have a metrics label of their own (METRICS_OPERATIONS); default none. */
  metricsOperations?: readonly string[];
  /** How long a purchaseId's claim is leased before a retry may take it over; default 2 minutes (tests shorten it). */
  purchaseIdLeaseMs?: number;
  /** The limits and keep-alive of subscriptions; default DEFAULT_SUBSCRIPTION_SETTINGS. */
  subscriptions?: SubscriptionSettings;
  /** How long a WebSocket may take to send `connection_init`; graphql-ws's 3 s unless given (tests shorten it). */
  connectionInitWaitTimeoutMs?: number;
  /** Each client's budget of weighed documents per window; default DEFAULT_CLIENT_BUDGET. */
  clientBudget?: ClientBudgetSettings;
  /** The proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES); default none: the socket's address does. */
  trustedProxies?: readonly string[];
}

/**
 * The GraphQL server on its own, as tests drive it with `executeOperation`; without `caching`, nothing is cached.
 * With an HTTP server, draining closes its connections, and `drainSubscriptions` (the subscriptions' plugin) its WebSockets.
 */
export function createApolloServer(
  {
    logger,
    production,
    caching,
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    trustedDocuments,
    budget,
  }: Pick<ServerOptions, "logger" | "production" | "requestTimeoutMs" | "trustedDocuments"> & {
    caching?: Caching;
    /** Each HTTP client's budget; absent (executeOperation), nothing is charged. */
    budget?: ClientBudget;
  },
  httpServer?: http.Server,
  metrics?: ServerMetrics,
  drainSubscriptions?: ApolloServerPlugin,
) {
  const drain = httpServer ? [ApolloServerPluginDrainHttpServer({ httpServer })] : [];
  if (drainSubscriptions) drain.push(drainSubscriptions);
  // Chosen here rather than by Apollo, which decides from NODE_ENV alone.
  const landingPage = production ? ApolloServerPluginLandingPageDisabled() : ApolloServerPluginLandingPageLocalDefault();
  return new ApolloServer<GraphQLContext>({
    gateway: compiledExecution({
      schema,
      compiledSchema,
      ...(trustedDocuments && { prepared: trustedDocuments }),
      ...(metrics ? { onInterpreted: metrics.countInterpretedOperation, onCompiled: metrics.countCompiledOperation } : {}),
    }),
    introspection: !production,
    includeStacktraceInErrorResponses: !production && process.env.NODE_ENV !== "test",
    formatError: createErrorFormatter(logger, production),
    parseOptions,
    // The pipeline's rules for HTTP (pipeline.ts), after graphql-js's own, as the WebSocket validates with them.
    validationRules: validationRules("http"),
    // Off by default; said here because one batch of many operations would slip past every per-request limit.
    allowBatchedHttpRequests: false,
    // A GET runs only queries (Apollo answers a mutation by GET with 405), and no credential rides along on its
    // own: GETs are served to every client's defaults, and non-JSON POSTs are refused by refuseNonJsonPosts (SECURITY.md).
    csrfPrevention: false,
    ...(caching ? { cache: caching.store } : {}),
    plugins: [
      ...drain,
      landingPage,
      // The operation pipeline (pipeline.ts): trusted documents before Apollo parses, then the variables coerced once,
      // the input, weight and scopes, the client's budget and the heavy lane, before any other plugin reads the
      // variables. A heavy request waits at most half its time limit for its turn, leaving it the other half to run.
      operationPipelinePlugin<GraphQLContext>({
        trustedDocuments,
        laneWaitMs: requestTimeoutMs / 2,
        ...(budget && { charge: budget.charge, clientOf: budget.clientOf }),
        weighed: (context, weight) => context.weigh(weight),
      }),
      embeddedBuyersPlugin<GraphQLContext>(),
      ...cachingPlugins<GraphQLContext>(caching),
      requestLogPlugin<GraphQLContext>(logger, metrics, (context) => context.purchases.writeSizes),
      // Apollo turns field-level traces on for any subgraph, for GraphOS usage reporting through a router;
      // this API reports through its own /metrics and log, and would pay the trace plugin's hooks on every request.
      ApolloServerPluginInlineTraceDisabled(),
      // Last: once every other plugin has had the answer, the request's services are let go.
      releaseServicesPlugin(),
    ],
    // The process owns its signals (src/cli/start.ts): Apollo's own handlers would race it and re-raise the signal.
    stopOnTerminationSignals: false,
  });
}

/**
 * A load balancer keeps idle connections to the API open and reuses them: the API must not close one
 * first, or a request the balancer sends at that moment fails (`other side closed`, a 502). Node's
 * default of 5 s is far below every balancer's idle timeout. The headers timeout must exceed the
 * keep-alive timeout (Node's own advice), and the request timeout, which Node checks against it,
 * follows it up when needed.
 */
function connectionTimeouts(keepAliveTimeoutSeconds: number): http.ServerOptions {
  const keepAliveTimeout = keepAliveTimeoutSeconds * 1000;
  const headersTimeout = keepAliveTimeout + 1000;
  return { keepAliveTimeout, headersTimeout, requestTimeout: Math.max(NODE_REQUEST_TIMEOUT_MS, headersTimeout) };
}

// Node's default: the whole request must arrive within 5 minutes.
const NODE_REQUEST_TIMEOUT_MS = 300_000;

/** CORS as the `cors` package's defaults answered it on Express: every origin, and these methods in a preflight. */
const CORS = { origin: "*", methods: "GET,HEAD,PUT,PATCH,POST,DELETE", strictPreflight: false };

/**
 * `/graphql` with its protections, in the order a request meets them: the time limit, CORS, `Vary`, the refusal of a
 * client in debt (client-budget.ts; with CORS headers, so that a page can read it), the refusal of non-JSON POSTs (all before the body is read), the body's decompression and parsing (Fastify's `bodyLimit`), the
 * refusal of deep JSON, the request's context, then Apollo. A GET's answer carries a weak ETag, and a matching
 * `If-None-Match` is answered 304; no other method's does (a POST is never revalidated).
 */
async function serveGraphQL(
  graphql: FastifyInstance,
  handler: RouteHandlerMethod,
  requestTimeoutMs: number,
  budget: ClientBudget,
  identify: (request: FastifyRequest) => Promise<void>,
): Promise<void> {
  graphql.addHook("onRequest", requestTimeLimit(requestTimeoutMs));
  // First of the steps that ask who the caller is (the budget, the context): a shopper's token is verified asynchronously.
  graphql.addHook("onRequest", identify);
  await graphql.register(cors, CORS);
  graphql.addHook("onRequest", varyByAuthorization);
  graphql.addHook("onRequest", budget.refuseInDebt);
  graphql.addHook("onRequest", refuseNonJsonPosts);
  await graphql.register(compress, { globalCompression: false, onInvalidRequestPayload: undecompressable });
  graphql.addHook("preValidation", refuseDeepJson(MAX_JSON_DEPTH));
  graphql.addHook("preHandler", requestContextHook);
  // Apollo answers the methods it does not serve (405, with Allow) itself.
  graphql.route({ method: ["POST", "PUT", "PATCH", "DELETE"], url: "/graphql", handler });
  await graphql.register(async (gets) => {
    await gets.register(etag, { weak: true });
    gets.get("/graphql", handler);
  });
}

export interface RunningServer {
  url: string;
  httpServer: http.Server;
  /** Stops accepting connections, lets requests in flight finish, then resolves. */
  stop(): Promise<void>;
}

/**
 * Serves `/graphql`, `/healthz`, `/readyz` and `/metrics` on `port` (0 for any free port) of `host`
 * (every interface when undefined).
 * Database commands are counted per request and in the metrics when `options.db`'s client was
 * created with `monitorCommands: true`.
 */
export async function startHttpServer(options: ServerOptions, port: number, host?: string): Promise<RunningServer> {
  const timeouts = connectionTimeouts(options.keepAliveTimeoutSeconds ?? DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS);
  const app = fastify({
    // The node server is the API's own: its timeouts, the WebSocket server on it and Apollo's drain all hold it.
    serverFactory: (handler) => http.createServer(timeouts, handler),
    bodyLimit: REQUEST_LIMITS.maxBodyBytes,
    // As Express' router did: /graphql/ is /graphql.
    routerOptions: { ignoreTrailingSlash: true },
    // Only named proxies: trusting any sender's X-Forwarded-For would let each request choose whose budget it spends.
    trustProxy: options.trustedProxies?.length ? [...options.trustedProxies] : false,
  });
  const httpServer = app.server;
  const metrics = createServerMetrics(() => countOutliers(options.db), options.metricsOperations);
  const responseCache = openResponseCache(options.cache, options.db.databaseName, options.logger, metrics.responseCache);
  const caching = {
    catalogMaxAgeSeconds: options.cache?.catalogMaxAgeSeconds ?? 0,
    store: responseCache.store,
    generation: responseCache.generation,
  };
  const server = createServerState(options, metrics);
  const callerOf = callerOfRequests(options.apiTokens, options.verifyShopper);
  // Counted in the response cache's Redis, when there is one, so that every process spends a client's one budget.
  const budget = createClientBudget(
    options.clientBudget ?? DEFAULT_CLIENT_BUDGET,
    callerOf,
    responseCache.redis && { redis: responseCache.redis, keyPrefix: `${options.db.databaseName}:`, logger: options.logger },
  );
  // The same budgets for a client's subscriptions as for its HTTP requests, its address taken behind the same proxies.
  const subscriptions = serveSubscriptions(httpServer, {
    ...options,
    limits: options.subscriptions ?? DEFAULT_SUBSCRIPTION_SETTINGS,
    server,
    metrics,
    budget,
  });
  const apollo = createApolloServer({ ...options, caching, budget }, httpServer, metrics, subscriptions.plugin);
  await apollo.start();
  const stopCounting = countDatabaseCommands(options.db.client, (event) => metrics.countDatabaseCommand(event.commandName));

  app.setErrorHandler(requestErrors(REQUEST_LIMITS.maxBodySize, options.logger));
  await app.register(operationalRoutes({ ...options, metrics }));
  const handler = graphqlHandler(apollo, async (request) => {
    const context = await server.contextFor(options.settings, callerOf(request));
    budget.attach(context, request);
    return context;
  });
  await app.register((graphql) =>
    serveGraphQL(graphql, handler, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, budget, callerOf.identify),
  );
  await app.ready();

  // once() rejects on "error", so a port in use fails start-up with EADDRINUSE instead of an unhandled event.
  await once(httpServer.listen(port, host), "listening");
  const { port: boundPort } = httpServer.address() as AddressInfo;
  const urlHost = host === undefined ? "localhost" : isIPv6(host) ? `[${host}]` : host;
  const stop = async () => {
    await apollo.stop();
    await server.stop();
    stopCounting();
    budget.close();
    await responseCache.close();
  };
  return { url: `http://${urlHost}:${boundPort}/graphql`, httpServer, stop };
}
