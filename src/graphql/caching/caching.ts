import type { ApolloServerPlugin, BaseContext } from "@apollo/server";
import type { onRequestHookHandler } from "fastify";
import responseCachePlugin from "@apollo/server-plugin-response-cache";
import { InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from "@apollo/utils.keyvaluecache";
import { randomUUID } from "node:crypto";
import { createClient } from "@redis/client";
import CircuitBreaker from "opossum";
import type { Logger } from "pino";
import type { Principal } from "../../auth/principal";
import { DEFAULT_RESPONSE_CACHE_TIMEOUT_MS, type CacheSettings } from "../../config";
import { cacheControlHeaderPlugin, staticCachePolicyPlugin } from "./cache-policy";

/** Where answers are kept between requests: this process's memory, or a Redis every API process shares. */
export interface ResponseCache {
  readonly store: KeyValueCache;
  readonly generation: CacheGeneration;
  /** The Redis the cache is kept in, for the client budgets to count in too; undefined for the in-process cache. */
  readonly redis: SharedRedis | undefined;
  /** Closes the connection to Redis, if any; the in-process cache needs nothing. */
  close(): Promise<void>;
}

/** A connection to the Redis that API processes share, and why it is down when a command fails. */
export interface SharedRedis {
  readonly client: RedisConnection;
  /** A failed command's message, with the connection's own error when it is down (a refused command says only "offline"). */
  explain(error: Error): string;
  /** The longest one command waits before it counts as failed (RESPONSE_CACHE_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

/**
 * A marker kept beside the answers, in the same store, and part of every answer's cache key: a write changes it,
 * so no answer cached before the write is served after it, by any process that shares the store.
 */
export interface CacheGeneration {
  /** The marker now, or undefined when the store does not answer (Redis away): the request then neither reads nor writes the cache. */
  current(): Promise<string | undefined>;
  /** Called after a write and before its answer is sent. */
  advance(): Promise<void>;
}

/** The state of the breaker in front of Redis: `open` while Redis is not asked, `half_open` while one request probes it. */
export type CacheBreakerState = "closed" | "open" | "half_open";

/** What the cache reports of the Redis behind it, for /metrics. */
export interface CacheObservers {
  /** A read or write failed (`error`) or outlasted its wait (`timeout`), and counted as a miss. */
  onFailure(reason: "error" | "timeout"): void;
  /** A read or write was not sent, since the breaker is open. */
  onSkipped(): void;
  onBreakerState(state: CacheBreakerState): void;
}

// An answer of 100 books with their buyers is about 40 kB: this holds hundreds of them, and no more whatever callers ask.
const IN_PROCESS_CACHE_BYTES = 32 * 1024 * 1024;
// Connecting to a Redis on the same network takes milliseconds. While it is away the client tries again in the
// background, at most 2.2 s apart (node-redis' default strategy); requests meanwhile answer without it.
const REDIS_CONNECT_TIMEOUT_MS = 1_000;
// The breaker opens when, within the last 10 s, at least 5 reads and writes were sent and half of them failed or
// outlasted their wait; then requests stop asking Redis, and once a second one request asks it again (the half-open
// probe), which closes the breaker when Redis answers in time.
const BREAKER_OPTIONS = { errorThresholdPercentage: 50, volumeThreshold: 5, rollingCountTimeout: 10_000, resetTimeout: 1_000 };

/** How long public answers may be cached, and the store that keeps them (and the automatic persisted queries). */
export interface Caching {
  catalogMaxAgeSeconds: number;
  store: KeyValueCache;
  generation: CacheGeneration;
}

/**
 * The in-process cache, bounded in bytes, or, with a `redis://` URL, the Redis that API processes
 * share. Keys there start with the database's name, so deployments of other databases (staging,
 * another shop) may share one Redis without ever answering from each other's data.
 */
export function openResponseCache(
  settings: CacheSettings | undefined,
  databaseName: string,
  logger: Logger,
  observers?: CacheObservers,
): ResponseCache {
  if (settings?.responseCacheUrl === undefined)
    return {
      store: new InMemoryLRUCache({ maxSize: IN_PROCESS_CACHE_BYTES }),
      generation: inProcessGeneration(),
      redis: undefined,
      close: async () => {},
    };
  // Without an offline queue, a command sent while the connection is down fails at once instead of waiting in
  // memory for a Redis that may never come back (node-redis' default).
  const client = redisConnection(settings.responseCacheUrl);
  // Each failed reconnection is an "error" event; the breaker below logs the outage once, with the last of them.
  let connectionError: string | undefined;
  client.on("error", (error: Error) => {
    connectionError = error.message;
    logger.debug({ err: error }, "response cache: Redis connection error");
  });
  client.on("ready", () => (connectionError = undefined));
  // Resolves once connected, retrying meanwhile; the server never waits for it.
  client.connect().catch((error: unknown) => logger.debug({ err: error }, "response cache: Redis connection given up"));
  // A command refused while disconnected says only "The client is offline"; the connection's own error says why.
  const explain = (error: Error) => (connectionError === undefined ? error.message : `${error.message}: ${connectionError}`);
  const timeoutMs = settings.responseCacheTimeoutMs ?? DEFAULT_RESPONSE_CACHE_TIMEOUT_MS;
  const breaker = bestEffortBreaker(timeoutMs, explain, logger, RESPONSE_CACHE_OUTAGE, observers);
  const prefix = `${databaseName}:`;
  const store: KeyValueCache<string> = {
    get: async (key) => (await breaker.run(() => client.get(prefix + key))) ?? undefined,
    set: async (key, value, options?: KeyValueCacheSetOptions) => {
      const ttl = options?.ttl;
      await breaker.run(() => client.set(prefix + key, value, ttl ? { expiration: { type: "EX", value: ttl } } : {}));
    },
    delete: async (key) => void (await breaker.run(() => client.del(prefix + key))),
  };
  const generation = sharedGeneration(
    () => breaker.run(() => client.get(`${prefix}${GENERATION_KEY}`)),
    (marker, onlyIfAbsent) => breaker.run(() => client.set(`${prefix}${GENERATION_KEY}`, marker, onlyIfAbsent ? { condition: "NX" } : {})),
  );
  const close = async () => {
    breaker.shutdown();
    // Not close(), which waits for the replies a frozen Redis never sends; cache writes in flight may be dropped.
    if (client.isOpen) client.destroy();
  };
  return { store, generation, redis: { client, explain, timeoutMs }, close };
}

/** node-redis' client of `url`, not yet connecting: its type is the one the response cache and the budgets share. */
function redisConnection(url: string) {
  return createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: REDIS_CONNECT_TIMEOUT_MS } });
}

type RedisConnection = ReturnType<typeof redisConnection>;

// Beside the answers (which the response cache plugin keys "fqc:…", and automatic persisted queries "apq:…"), never expiring.
const GENERATION_KEY = "generation";

function inProcessGeneration(): CacheGeneration {
  let generation = 0;
  return { current: async () => String(generation), advance: async () => void generation++ };
}

/**
 * The marker in Redis: a random value rather than a counter, so a Redis that lost the key (restarted, or evicting
 * under memory pressure) never hands out again a marker that answers were cached under. `read` answers null when the
 * key is missing and undefined when Redis did not answer.
 */
function sharedGeneration(
  read: () => Promise<string | null | undefined>,
  write: (marker: string, onlyIfAbsent: boolean) => Promise<unknown>,
): CacheGeneration {
  return {
    current: async () => {
      const marker = await read();
      if (marker !== null) return marker;
      // The first request after the key was lost sets a new one; when processes race, the first to set it wins.
      await write(randomUUID(), true);
      return (await read()) ?? undefined;
    },
    advance: async () => void (await write(randomUUID(), false)),
  };
}

/** What the log says of an outage of Redis, for one use of it: who speaks, what is done without Redis, what resumes with it. */
export interface OutageWords {
  readonly subject: string;
  readonly meanwhile: string;
  readonly resumed: string;
}

const RESPONSE_CACHE_OUTAGE: OutageWords = {
  subject: "response cache",
  meanwhile: "requests are answered without the cache",
  resumed: "caching resumed",
};

export interface BestEffortBreaker {
  /** The operation's result, or undefined when it failed, outlasted the wait, or was not sent because the breaker is open. */
  run<T>(operation: () => Promise<T>): Promise<T | undefined>;
  shutdown(): void;
}

/**
 * A circuit breaker (opossum) in front of Redis: each read or write waits at most `timeoutMs`, then counts as a miss,
 * never an error; too many of those and Redis is not asked at all until a probe finds it answering. The log says so
 * once when Redis stops answering and once when it answers again, however many probes fail between.
 */
export function bestEffortBreaker(
  timeoutMs: number,
  explain: (error: Error) => string,
  logger: Logger,
  words: OutageWords,
  observers?: CacheObservers,
): BestEffortBreaker {
  const breaker = new CircuitBreaker((operation: () => Promise<unknown>) => operation(), { ...BREAKER_OPTIONS, timeout: timeoutMs });
  let lastFailure = "";
  let outage = false;
  breaker.on("failure", (error: Error & { code?: string }) => {
    const timedOut = error.code === "ETIMEDOUT";
    lastFailure = timedOut ? `no answer within ${timeoutMs} ms` : explain(error);
    observers?.onFailure(timedOut ? "timeout" : "error");
  });
  breaker.on("reject", () => observers?.onSkipped());
  breaker.on("halfOpen", () => observers?.onBreakerState("half_open"));
  breaker.on("open", () => {
    observers?.onBreakerState("open");
    if (outage) return;
    outage = true;
    logger.warn(
      { reason: lastFailure },
      `${words.subject}: Redis is not answering (${lastFailure}); ${words.meanwhile}, and Redis is asked again every ${BREAKER_OPTIONS.resetTimeout / 1000} s`,
    );
  });
  breaker.on("close", () => {
    observers?.onBreakerState("closed");
    if (!outage) return;
    outage = false;
    logger.info(`${words.subject}: Redis answers again; ${words.resumed}`);
  });
  observers?.onBreakerState("closed");
  return {
    run: async <T>(operation: () => Promise<T>) => {
      try {
        // The breaker's action returns what the operation returns; opossum's types know only one action signature.
        return (await breaker.fire(operation)) as T;
      } catch {
        return undefined;
      }
    },
    shutdown: () => breaker.shutdown(),
  };
}

/**
 * Cache hints and the response cache. The schema's `@cacheControl` hints say what is private and what
 * is never cached; how long the rest may be cached is this server's setting, the hints' default max
 * age. The operation's policy comes from the hints alone (`staticCachePolicyPlugin`), since compiled execution
 * calls none of the resolver hooks Apollo's plugin learns them from; Apollo's plugin turns it into headers. Without `caching`, or with a max age of 0, every answer says `no-store` and nothing is kept.
 */
export function cachingPlugins<TContext extends { principal: Principal }>(caching: Caching | undefined): ApolloServerPlugin<TContext>[] {
  const maxAge = caching?.catalogMaxAgeSeconds ?? 0;
  const cacheControl = [cacheControlHeaderPlugin<TContext>(maxAge), staticCachePolicyPlugin<TContext>(maxAge)];
  if (!caching || maxAge === 0) return cacheControl;
  // The marker each request read before it looked at the cache: the key it reads and writes answers under.
  const generations = new WeakMap<TContext, string | undefined>();
  const knowsGeneration = async ({ contextValue }: { contextValue: TContext }) => generations.get(contextValue) !== undefined;
  const responseCache = responseCachePlugin<TContext>({
    cache: caching.store,
    sessionId: async ({ contextValue }) => sessionId(contextValue.principal),
    extraCacheKeyData: async ({ contextValue }) => {
      const generation = await caching.generation.current();
      generations.set(contextValue, generation);
      return generation;
    },
    shouldReadFromCache: knowsGeneration,
    shouldWriteToCache: knowsGeneration,
  });
  return [...cacheControl, responseCache, invalidateOnWrite(caching.generation)];
}

/**
 * Every mutation that ran changes the marker before its answer is sent: once a caller has the answer, no process
 * serves an answer cached before the write. All of them, public and private: a purchase changes its book's count
 * and buyers, the order of the bestsellers, the totals and what other books' buyers also bought, and an answer's
 * cache key does not say which books it holds. A request that read the old marker before the write may still
 * store what it read, under the old marker, where nothing looks any more.
 */
function invalidateOnWrite<TContext extends BaseContext>(generation: CacheGeneration): ApolloServerPlugin<TContext> {
  return {
    requestDidStart: async () => ({
      willSendResponse: async ({ operation }) => {
        if (operation?.operation === "mutation") await generation.advance();
      },
    }),
  };
}

/**
 * Tells browsers and proxies that an answer depends on the Authorization header: a browser shared by
 * two users (a sign-out, then another token) must not serve the first one's private answer, cached for
 * its max age, to the second. Anonymous callers, who send none, still share every public answer.
 */
export const varyByAuthorization: onRequestHookHandler = (_request, reply, done) => {
  reply.header("vary", "Authorization");
  done();
};

/**
 * A private answer is kept for the token that asked, and for no one else. Callers without a token
 * (anonymous, or everyone while the API is open in development) have no session: their private
 * answers are not cached at all.
 */
function sessionId(principal: Principal): string | null {
  return principal.kind === "token" ? `token:${principal.name}` : null;
}
