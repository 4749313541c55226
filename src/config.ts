import { cleanEnv, host, makeValidator, port, str, url, type ReporterOptions } from "envalid";
import ConnectionString from "mongodb-connection-string-url";
import { isIP } from "node:net";
import { EXAMPLE as API_TOKENS_EXAMPLE, parseTokenSpecs, type ConfiguredToken } from "./auth/tokens";
import { readTrustedDocuments, type TrustedDocuments } from "./auth/trusted-documents";
import { isOperationLabel, MAX_LISTED_OPERATIONS } from "./observability/operation-names";

/** Everything the process reads from its environment, validated once at start-up. */
export interface Config {
  readonly port: number;
  /** The address to listen on; undefined means every interface. */
  readonly host: string | undefined;
  /** Undefined means: start a throwaway database. */
  readonly mongodbUri: string | undefined;
  readonly mongodbDb: string;
  readonly outlierThreshold: number;
  readonly extraSalesPageSize: number;
  readonly nodeEnv: "development" | "production" | "test";
  /** How long a request may run before it is answered with REQUEST_TIMEOUT; the driver's timeouts are shares of it. */
  readonly requestTimeoutMs: number;
  /** How long a recordPurchase `purchaseId` is remembered, so that retries within it record nothing new. */
  readonly purchaseIdLifetimeHours: number;
  /** Whether a keyed purchase records its claim, purchase and outcome in one transaction where MongoDB offers them ("auto"), or never ("off"). */
  readonly purchaseTransactions: PurchaseTransactions;
  /** Digests of the bearer tokens; undefined means none are configured and the API is open (never in production). */
  readonly apiTokens: readonly ConfiguredToken[] | undefined;
  /** The only operations tokens marked `"trustedDocuments": true` may run, by hash; undefined when no token is marked. */
  readonly trustedDocuments: TrustedDocuments | undefined;
  /** How long public catalog answers may be served from a cache (the response cache, a CDN, a browser); 0 caches nothing. */
  readonly catalogMaxAgeSeconds: number;
  /** The Redis that API processes share their response cache and client budgets through; undefined keeps both in this process. */
  readonly responseCacheUrl: string | undefined;
  /** How long one read or write of the Redis response cache may wait before it counts as a miss. */
  readonly responseCacheTimeoutMs: number;
  /** How long an idle keep-alive connection stays open: longer than any load balancer's idle timeout in front of the API. */
  readonly keepAliveTimeoutSeconds: number;
  /** Whether concurrent extra sales of one book share their writes (see `SharedWrites`). */
  readonly purchaseBatching: boolean;
  /** The most purchases one shared write carries. */
  readonly purchaseBatchMax: number;
  /** Operation names that always have a label of their own in /metrics, whatever names other clients send first. */
  readonly metricsOperations: readonly string[];
  /** The most subscriptions one WebSocket connection may hold at once. */
  readonly subscriptionsPerConnection: number;
  /** The most subscriptions this process holds at once, over all its connections. */
  readonly subscriptionsPerProcess: number;
  /** The most WebSocket connections without a bearer token this process holds at once. */
  readonly anonymousConnectionsPerProcess: number;
  /** How often an idle WebSocket is pinged, and how long its pong may take before the connection is dropped. */
  readonly subscriptionKeepAliveSeconds: number;
  /** The most bytes one WebSocket may leave unread (waiting in this process to be sent) before it is closed. */
  readonly unsentBytesPerConnection: number;
  /** The most WebSocket connections one client address (the forwarded one behind TRUSTED_PROXIES) holds at once, tokens of public pages included. */
  readonly connectionsPerAddress: number;
  /** Documents heavy requests of one client without a token (one address) may weigh per budget window. */
  readonly clientBudgetDocuments: number;
  /** Documents heavy requests of one bearer token may weigh per budget window. */
  readonly clientBudgetTokenDocuments: number;
  /** The budget window: a client's budget refills continuously, a whole budget per this many seconds. */
  readonly clientBudgetSeconds: number;
  /** Addresses and ranges of the proxies in front of the API, whose `X-Forwarded-For` names the client; none: the socket's address does. */
  readonly trustedProxies: readonly string[];
  /** The OpenID Connect issuer of shoppers' access tokens; undefined: the development issuer, or no shoppers in production. */
  readonly oidcIssuer: string | undefined;
  /** The audience shoppers' tokens must be for: the API's identifier at the issuer. */
  readonly oidcAudience: string;
  /** The claim of a shopper's token that holds the customer id. */
  readonly oidcCustomerClaim: string;
  /** Seconds after fetching the issuer's keys before a token naming an unknown key may fetch them again. */
  readonly oidcKeysCooldownSeconds: number;
  /**
   * The loopback port of the development issuer, served when OIDC_ISSUER is not set, outside production; undefined:
   * DEFAULT_OIDC_DEV_PORT, except under NODE_ENV=test, where only a test that sets it gets one.
   */
  readonly oidcDevPort: number | undefined;
}

/** The audience of the development issuer's tokens, and OIDC_AUDIENCE's default without OIDC_ISSUER. */
export const DEV_AUDIENCE = "urn:bookstore-sales-catalog:api";
export const DEFAULT_OIDC_DEV_PORT = 4001;
// An hour: past that, a rotated key is followed too late for any issuer's overlap of old and new keys.
const MAX_KEYS_COOLDOWN_SECONDS = 3_600;

/** Each client's budget of weighed documents (src/graphql/limits/client-budget.ts). */
export type ClientBudgetSettings = Pick<Config, "clientBudgetDocuments" | "clientBudgetTokenDocuments" | "clientBudgetSeconds">;

/**
 * Two requests at the document limit (1,000) per 4 s for an address, ten times that for a token: a storefront's
 * pages are light (never counted) but for the largest (`ListBooks` with 100 books and their buyers, 301 documents:
 * six per 4 s), while four clients sending `_entities` of 1,000 books back to back ran about 10 a second and took
 * most of the API's CPU (docs/benchmarks/analysis.md, issue 35). A short window spreads what a client may spend:
 * 5,000 per 10 s let each attacker spend its whole budget at once, and the four together held the API for a second.
 * A token that sends for many users at once (a router, a storefront's server) needs more: 20,000 is about 16 of the
 * storefront's largest pages a second (docs/operations/configuration.md says so).
 */
export const DEFAULT_CLIENT_BUDGET: ClientBudgetSettings = {
  clientBudgetDocuments: 2_000,
  clientBudgetTokenDocuments: 20_000,
  clientBudgetSeconds: 4,
};
// A budget under the document limit could never pay the largest request a client may send.
const MIN_CLIENT_BUDGET_DOCUMENTS = 1_000;
const MAX_CLIENT_BUDGET_DOCUMENTS = 1_000_000_000;
// An hour: past it, a refused client is told to come back later than any client waits.
const MAX_CLIENT_BUDGET_SECONDS = 3_600;

/** The limits and keep-alive of the subscriptions' WebSocket server. */
export type SubscriptionSettings = Pick<
  Config,
  | "subscriptionsPerConnection"
  | "subscriptionsPerProcess"
  | "anonymousConnectionsPerProcess"
  | "subscriptionKeepAliveSeconds"
  | "unsentBytesPerConnection"
  | "connectionsPerAddress"
>;

export const DEFAULT_SUBSCRIPTION_SETTINGS: SubscriptionSettings = {
  subscriptionsPerConnection: 20,
  subscriptionsPerProcess: 20_000,
  anonymousConnectionsPerProcess: 10_000,
  // Well under the 60 s idle timeout of common load balancers, which would otherwise cut a quiet subscription.
  subscriptionKeepAliveSeconds: 20,
  // A subscriber has one value in flight per subscription (20 of a few KB) and an error answer is tens of KB: a MiB
  // leaves a slow phone room, and bounds what 10,000 sockets that never read can hold to 10 GB rather than all of it.
  unsentBytesPerConnection: 1024 * 1024,
  // A browser tab holds one socket; a household or office behind one address, a few dozen. The attack of issue 51 held
  // 30 sockets of 20 subscriptions each, and 1,466 behind the storefront's proxy.
  connectionsPerAddress: 20,
};
// Under the largest frame the server sends (an answer of 100 validation errors is about 10 KB), every frame would close the socket.
const MIN_UNSENT_BYTES_PER_CONNECTION = 16 * 1024;
const MAX_UNSENT_BYTES_PER_CONNECTION = 256 * 1024 * 1024;
// A connection's subscriptions share its one socket; more than this is a client that should open another.
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 1_000;
const MAX_SUBSCRIPTIONS_PER_PROCESS = 1_000_000;
// Under the 60 s idle timeout of the load balancers a ping exists to keep from cutting the socket.
const MAX_SUBSCRIPTION_KEEP_ALIVE_SECONDS = 55;

/** How the server shares the writes of concurrent purchases of one book. */
/** Whether purchases of one outlier share their writes: the settings keep PURCHASE_BATCHING's and PURCHASE_BATCH_MAX's names. */
export type PurchaseSharingSettings = Pick<Config, "purchaseBatching" | "purchaseBatchMax">;

export const DEFAULT_PURCHASE_BATCH_MAX = 100;
const MAX_PURCHASE_BATCH = 1_000;

/** What the server needs to cache answers; absent from the server's options, nothing is cached. The wait on Redis has its default unless given. */
export type CacheSettings = Pick<Config, "catalogMaxAgeSeconds" | "responseCacheUrl"> & Partial<Pick<Config, "responseCacheTimeoutMs">>;

export const DEFAULT_RESPONSE_CACHE_TIMEOUT_MS = 100;
// A cache that may cost each read a second no longer saves anything worth having.
const MAX_RESPONSE_CACHE_TIMEOUT_MS = 1_000;

/** The limits of the outlier pattern that new books are written with. */
export type OutlierSettings = Pick<Config, "outlierThreshold" | "extraSalesPageSize">;

export const PURCHASE_TRANSACTIONS = ["auto", "off"] as const;
export type PurchaseTransactions = (typeof PURCHASE_TRANSACTIONS)[number];

/** How long purchase ids (their claims) are kept, and whether they are recorded in transactions where the deployment offers them. */
export type PurchaseIdSettings = Pick<Config, "purchaseIdLifetimeHours" | "purchaseTransactions">;

export const DEFAULT_PURCHASE_ID_LIFETIME_HOURS = 24;

/** What the API's request handlers read from the configuration; purchase ids live the default lifetime unless it is given. */
export type ApiSettings = OutlierSettings & Partial<PurchaseIdSettings>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const wholeNumber = (min: number, max: number) =>
  makeValidator<number>((input) => {
    const value = Number(input);
    if (!/^\d+$/.test(input.trim()) || value < min || value > max) {
      throw new Error(`must be a whole number from ${min} to ${max}, got "${input}"`);
    }
    return value;
  });
const positiveInteger = (max: number) => wholeNumber(1, max);

const redisUrl = makeValidator<string>((input) => {
  const protocol = URL.canParse(input) ? new URL(input).protocol : undefined;
  // Never echoed: the URL may hold Redis's password.
  if (protocol !== "redis:" && protocol !== "rediss:") throw new Error("must be a redis:// or rediss:// URL");
  return input;
});

// envalid's url() rejects replica-set strings ("host1,host2"), so parse them as the driver does.
const mongodbUri = makeValidator<string>((input) => {
  try {
    return new ConnectionString(input).toString();
  } catch (error) {
    throw new Error(`not a MongoDB connection string (${(error as Error).message}); expected mongodb://host:port/`, { cause: error });
  }
});

const apiTokens = makeValidator<ConfiguredToken[]>(parseTokenSpecs);

const trustedDocuments = makeValidator<TrustedDocuments>(readTrustedDocuments);

/** An IPv4 or IPv6 address, optionally a CIDR range (`10.0.0.0/8`), as Fastify's `trustProxy` takes them. */
function isProxyAddress(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

const proxyAddresses = makeValidator<string[]>((input) => {
  const entries = input
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const invalid = entries.find((entry) => !isProxyAddress(entry));
  if (invalid !== undefined) throw new Error(`"${invalid.slice(0, 80)}" is not an IP address or a CIDR range such as 10.0.0.0/8`);
  return entries;
});

const operationNames = makeValidator<string[]>((input) => {
  const names = input
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const invalid = names.find((name) => !isOperationLabel(name));
  if (invalid !== undefined) throw new Error(`"${invalid.slice(0, 80)}" is not a GraphQL operation name of at most 64 characters`);
  if (names.length > MAX_LISTED_OPERATIONS) throw new Error(`lists ${names.length} names; at most ${MAX_LISTED_OPERATIONS}`);
  return names;
});

// Pages above a few thousand entries bring back the very document growth the pattern exists to avoid.
const MAX_EXTRA_SALES_PAGE_SIZE = 10_000;
const MAX_THRESHOLD = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
// Past two minutes a client, proxy or load balancer has given up long before.
const MAX_REQUEST_TIMEOUT_MS = 120_000;
// A year of keys is already more than any client retries for; longer only grows purchase_requests.
const MAX_PURCHASE_ID_LIFETIME_HOURS = 8_760;
export const DEFAULT_CATALOG_MAX_AGE_SECONDS = 5;
// A day: the catalog changes with every purchase, and a stale count for longer helps no storefront.
const MAX_CATALOG_MAX_AGE_SECONDS = 86_400;
// Above the 60 s idle timeout of common load balancers (AWS's ALB and ELB): the balancer must close an idle connection
// first, or it may send a request down a socket the API is closing, and its client gets a 502.
export const DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS = 65;
// Google Cloud's load balancers keep idle connections 600 s and advise backends to wait longer.
const MAX_KEEP_ALIVE_TIMEOUT_SECONDS = 3_600;

function throwAllErrors({ errors }: ReporterOptions<unknown>): void {
  const problems = Object.entries(errors).map(([name, error]) => `  ${name}: ${(error as Error).message}`);
  if (problems.length > 0) {
    throw new ConfigError(`Invalid environment, fix these variables and start again:\n${problems.join("\n")}`);
  }
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const clean = cleanEnv(
    env,
    {
      PORT: port({ default: 4000, desc: "HTTP port of the API" }),
      HOST: host({
        default: undefined,
        desc: "address to listen on; unset: 127.0.0.1 while the API is open (no API_TOKENS), every interface otherwise",
      }),
      MONGODB_URI: mongodbUri({
        default: undefined,
        // The throwaway database holds everything in memory: a deployment that forgot this variable would lose every order at restart.
        requiredWhen: (env) => env.NODE_ENV === "production",
        desc: "must be set when NODE_ENV=production, which refuses to keep the catalog in a throwaway in-memory database; set it to your MongoDB's connection string",
        example: "mongodb://db1:27017,db2:27017/?replicaSet=rs0",
      }),
      MONGODB_DB: str({ default: "bookstore", desc: "database name" }),
      OUTLIER_THRESHOLD: positiveInteger(MAX_THRESHOLD)({ default: 50, desc: "purchases embedded in a book" }),
      EXTRA_SALES_PAGE_SIZE: positiveInteger(MAX_EXTRA_SALES_PAGE_SIZE)({ default: 1000, desc: "purchases per extra_sales page" }),
      NODE_ENV: str({ choices: ["development", "production", "test"], default: "development" }),
      REQUEST_TIMEOUT_MS: positiveInteger(MAX_REQUEST_TIMEOUT_MS)({
        default: DEFAULT_REQUEST_TIMEOUT_MS,
        desc: "time limit of one request",
      }),
      PURCHASE_ID_LIFETIME_HOURS: positiveInteger(MAX_PURCHASE_ID_LIFETIME_HOURS)({
        default: DEFAULT_PURCHASE_ID_LIFETIME_HOURS,
        desc: "hours a purchaseId is remembered",
      }),
      PURCHASE_TRANSACTIONS: str({
        choices: PURCHASE_TRANSACTIONS,
        default: "auto",
        desc: "auto: record a keyed purchase in one transaction on a replica set or mongos; off: never use transactions",
      }),
      API_TOKENS: apiTokens({
        default: undefined,
        requiredWhen: (env) => env.NODE_ENV === "production",
        desc: "must be set when NODE_ENV=production, which refuses to start with the API open to anyone; set it to a JSON array of bearer tokens",
        example: API_TOKENS_EXAMPLE,
      }),
      TRUSTED_DOCUMENTS: trustedDocuments({
        default: undefined,
        // envalid hands this the variables already cleaned: API_TOKENS parsed.
        requiredWhen: (env) => (env.API_TOKENS as ConfiguredToken[] | undefined)?.some((token) => token.trustedDocumentsOnly) ?? false,
        desc: 'must be set when a token in API_TOKENS is marked "trustedDocuments": true: the persisted documents manifest (npm run codegen writes it) whose operations are all such tokens may run',
        example: "examples/web-storefront/src/__generated__/persisted-documents.json",
      }),
      CATALOG_MAX_AGE_SECONDS: wholeNumber(
        0,
        MAX_CATALOG_MAX_AGE_SECONDS,
      )({
        default: DEFAULT_CATALOG_MAX_AGE_SECONDS,
        desc: "seconds public catalog answers may be served from cache; 0 turns caching off",
      }),
      RESPONSE_CACHE_URL: redisUrl({
        default: undefined,
        desc: "a Redis that API processes share their response cache and their clients' budgets through; unset: each process caches and counts budgets in its own memory",
        example: "redis://cache.internal:6379",
      }),
      RESPONSE_CACHE_TIMEOUT_MS: positiveInteger(MAX_RESPONSE_CACHE_TIMEOUT_MS)({
        default: DEFAULT_RESPONSE_CACHE_TIMEOUT_MS,
        desc: "the longest one read or write of the Redis response cache, or one charge of a client budget there, waits before it counts as a miss",
      }),
      KEEP_ALIVE_TIMEOUT_SECONDS: positiveInteger(MAX_KEEP_ALIVE_TIMEOUT_SECONDS)({
        default: DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS,
        desc: "seconds an idle HTTP connection stays open; set it above your load balancer's idle timeout",
      }),
      PURCHASE_BATCHING: str({
        choices: ["on", "off"],
        default: "on",
        desc: "on: concurrent purchases of one outlier share their writes (one append and one count per shared write); off: one pair of writes per purchase",
      }),
      PURCHASE_BATCH_MAX: positiveInteger(MAX_PURCHASE_BATCH)({
        default: DEFAULT_PURCHASE_BATCH_MAX,
        desc: "the most purchases one shared write carries",
      }),
      METRICS_OPERATIONS: operationNames({
        default: [],
        desc: "comma-separated operation names (your clients' own) that always have a label of their own in /metrics",
        example: "ListBooks,BookBuyers,RecordPurchase",
      }),
      SUBSCRIPTIONS_PER_CONNECTION: positiveInteger(MAX_SUBSCRIPTIONS_PER_CONNECTION)({
        default: DEFAULT_SUBSCRIPTION_SETTINGS.subscriptionsPerConnection,
        desc: "the most subscriptions one WebSocket connection may hold at once",
      }),
      SUBSCRIPTIONS_PER_PROCESS: positiveInteger(MAX_SUBSCRIPTIONS_PER_PROCESS)({
        default: DEFAULT_SUBSCRIPTION_SETTINGS.subscriptionsPerProcess,
        desc: "the most subscriptions one API process holds at once, over all its connections",
      }),
      ANONYMOUS_CONNECTIONS_PER_PROCESS: positiveInteger(MAX_SUBSCRIPTIONS_PER_PROCESS)({
        default: DEFAULT_SUBSCRIPTION_SETTINGS.anonymousConnectionsPerProcess,
        desc: "the most WebSocket connections without a bearer token one API process holds at once",
      }),
      SUBSCRIPTION_KEEP_ALIVE_SECONDS: positiveInteger(MAX_SUBSCRIPTION_KEEP_ALIVE_SECONDS)({
        default: DEFAULT_SUBSCRIPTION_SETTINGS.subscriptionKeepAliveSeconds,
        desc: "seconds between pings of a WebSocket connection; one not answered within as long again is dropped",
      }),
      UNSENT_BYTES_PER_CONNECTION: wholeNumber(
        MIN_UNSENT_BYTES_PER_CONNECTION,
        MAX_UNSENT_BYTES_PER_CONNECTION,
      )({
        default: DEFAULT_SUBSCRIPTION_SETTINGS.unsentBytesPerConnection,
        desc: "the most bytes one WebSocket connection may leave unread in the API's memory; past it the connection is closed with 1008",
      }),
      CONNECTIONS_PER_ADDRESS: positiveInteger(MAX_SUBSCRIPTIONS_PER_PROCESS)({
        default: DEFAULT_SUBSCRIPTION_SETTINGS.connectionsPerAddress,
        desc: "the most WebSocket connections one client address (the forwarded one behind TRUSTED_PROXIES) holds at once on one API process, except those of tokens not held to trusted documents",
      }),
      CLIENT_BUDGET_DOCUMENTS: wholeNumber(
        MIN_CLIENT_BUDGET_DOCUMENTS,
        MAX_CLIENT_BUDGET_DOCUMENTS,
      )({
        default: DEFAULT_CLIENT_BUDGET.clientBudgetDocuments,
        desc: "documents heavy requests (over 100 documents each) of one address without a token may weigh per CLIENT_BUDGET_SECONDS",
      }),
      CLIENT_BUDGET_TOKEN_DOCUMENTS: wholeNumber(
        MIN_CLIENT_BUDGET_DOCUMENTS,
        MAX_CLIENT_BUDGET_DOCUMENTS,
      )({
        default: DEFAULT_CLIENT_BUDGET.clientBudgetTokenDocuments,
        desc: "documents heavy requests of one bearer token may weigh per CLIENT_BUDGET_SECONDS",
      }),
      CLIENT_BUDGET_SECONDS: positiveInteger(MAX_CLIENT_BUDGET_SECONDS)({
        default: DEFAULT_CLIENT_BUDGET.clientBudgetSeconds,
        desc: "seconds in which a client's budget refills continuously from empty to whole",
      }),
      TRUSTED_PROXIES: proxyAddresses({
        default: [],
        desc: "comma-separated addresses or CIDR ranges of the proxies in front of the API: their X-Forwarded-For names each client (its budget, its log line); unset: every client is its socket's address",
        example: "10.0.0.0/8,127.0.0.1",
      }),
      OIDC_ISSUER: url({
        default: undefined,
        desc: "the OpenID Connect issuer whose access tokens sign shoppers in (its discovery document names its keys); unset: a development issuer on loopback, or no shoppers in production",
        example: "https://auth.example.com/realms/bookstore",
      }),
      OIDC_AUDIENCE: str({
        default: undefined,
        // Every issuer names its API differently; a guessed default would refuse every shopper without saying why.
        requiredWhen: (env) => env.OIDC_ISSUER !== undefined,
        desc: "must be set with OIDC_ISSUER: the audience (aud) its access tokens for this API carry",
        example: "https://api.bookstore.example/graphql",
      }),
      OIDC_CUSTOMER_CLAIM: str({ default: "sub", desc: "the claim of a shopper's access token that holds the customer id" }),
      OIDC_KEYS_COOLDOWN_SECONDS: wholeNumber(
        0,
        MAX_KEYS_COOLDOWN_SECONDS,
      )({
        default: 30,
        desc: "seconds after fetching the issuer's keys before a token signed with an unknown key fetches them again",
      }),
      OIDC_DEV_PORT: port({
        default: undefined,
        desc: `loopback port of the development issuer (without OIDC_ISSUER, outside production); unset: ${DEFAULT_OIDC_DEV_PORT}, and none under NODE_ENV=test`,
      }),
    },
    { reporter: throwAllErrors },
  );
  return {
    port: clean.PORT,
    // An API open to anyone (development without tokens) is only reachable from this machine unless HOST says otherwise.
    host: clean.HOST ?? (clean.API_TOKENS === undefined ? "127.0.0.1" : undefined),
    mongodbUri: clean.MONGODB_URI,
    mongodbDb: clean.MONGODB_DB,
    outlierThreshold: clean.OUTLIER_THRESHOLD,
    extraSalesPageSize: clean.EXTRA_SALES_PAGE_SIZE,
    nodeEnv: clean.NODE_ENV as Config["nodeEnv"],
    requestTimeoutMs: clean.REQUEST_TIMEOUT_MS,
    purchaseIdLifetimeHours: clean.PURCHASE_ID_LIFETIME_HOURS,
    purchaseTransactions: clean.PURCHASE_TRANSACTIONS,
    apiTokens: clean.API_TOKENS,
    trustedDocuments: clean.TRUSTED_DOCUMENTS,
    catalogMaxAgeSeconds: clean.CATALOG_MAX_AGE_SECONDS,
    responseCacheUrl: clean.RESPONSE_CACHE_URL,
    responseCacheTimeoutMs: clean.RESPONSE_CACHE_TIMEOUT_MS,
    keepAliveTimeoutSeconds: clean.KEEP_ALIVE_TIMEOUT_SECONDS,
    purchaseBatching: clean.PURCHASE_BATCHING === "on",
    purchaseBatchMax: clean.PURCHASE_BATCH_MAX,
    metricsOperations: clean.METRICS_OPERATIONS,
    subscriptionsPerConnection: clean.SUBSCRIPTIONS_PER_CONNECTION,
    subscriptionsPerProcess: clean.SUBSCRIPTIONS_PER_PROCESS,
    anonymousConnectionsPerProcess: clean.ANONYMOUS_CONNECTIONS_PER_PROCESS,
    subscriptionKeepAliveSeconds: clean.SUBSCRIPTION_KEEP_ALIVE_SECONDS,
    unsentBytesPerConnection: clean.UNSENT_BYTES_PER_CONNECTION,
    connectionsPerAddress: clean.CONNECTIONS_PER_ADDRESS,
    clientBudgetDocuments: clean.CLIENT_BUDGET_DOCUMENTS,
    clientBudgetTokenDocuments: clean.CLIENT_BUDGET_TOKEN_DOCUMENTS,
    clientBudgetSeconds: clean.CLIENT_BUDGET_SECONDS,
    trustedProxies: clean.TRUSTED_PROXIES,
    oidcIssuer: clean.OIDC_ISSUER,
    oidcAudience: clean.OIDC_AUDIENCE ?? DEV_AUDIENCE,
    oidcCustomerClaim: clean.OIDC_CUSTOMER_CLAIM,
    oidcKeysCooldownSeconds: clean.OIDC_KEYS_COOLDOWN_SECONDS,
    oidcDevPort: clean.OIDC_DEV_PORT,
  };
}
