import type { ApolloServerPlugin } from "@apollo/server";
import type { RequestHandler } from "express";
import { ApolloServerPluginCacheControl } from "@apollo/server/plugin/cacheControl";
import responseCachePlugin from "@apollo/server-plugin-response-cache";
import { KeyvAdapter } from "@apollo/utils.keyvadapter";
import { ErrorsAreMissesCache, InMemoryLRUCache, type KeyValueCache } from "@apollo/utils.keyvaluecache";
import KeyvRedis from "@keyv/redis";
import Keyv from "keyv";
import type { Logger } from "pino";
import type { Principal } from "../auth/principal";

/** Where answers are kept between requests: this process's memory, or a Redis every API process shares. */
export interface ResponseCache {
  readonly store: KeyValueCache;
  /** Closes the connection to Redis, if any; the in-process cache needs nothing. */
  close(): Promise<void>;
}

// An answer of 100 books with their buyers is about 40 kB: this holds hundreds of them, and no more whatever callers ask.
const IN_PROCESS_CACHE_BYTES = 32 * 1024 * 1024;
// Connecting to a Redis on the same network takes milliseconds; while it is down, each request tries
// again and waits this long before it is answered without the cache.
const REDIS_CONNECT_TIMEOUT_MS = 500;

/** How long public answers may be cached, and the store that keeps them (and the automatic persisted queries). */
export interface Caching {
  catalogMaxAgeSeconds: number;
  store: KeyValueCache;
}

/**
 * The in-process cache, bounded in bytes, or, with a `redis://` URL, the Redis that API processes
 * share. Keys there start with the database's name, so deployments of other databases (staging,
 * another shop) may share one Redis without ever answering from each other's data.
 */
export function openResponseCache(redisUrl: string | undefined, databaseName: string, logger: Logger): ResponseCache {
  if (redisUrl === undefined) return { store: new InMemoryLRUCache({ maxSize: IN_PROCESS_CACHE_BYTES }), close: async () => {} };
  const redis = new KeyvRedis(redisUrl, { throwOnConnectError: false, connectionTimeout: REDIS_CONNECT_TIMEOUT_MS });
  const keyv = new Keyv<string>({ store: redis, namespace: databaseName, useKeyPrefix: false, throwOnErrors: true });
  // A Redis that is down costs cache misses, never a failed request; its client reports every reconnection
  // attempt, so only the first failure is logged.
  keyv.once("error", (error: unknown) =>
    logger.warn({ err: error }, "response cache: Redis did not answer; answering without it while it does not (logged once)"),
  );
  const store = new ErrorsAreMissesCache(new KeyvAdapter(keyv), logger);
  return { store, close: () => redis.disconnect() };
}

/**
 * Cache hints and the response cache. The schema's `@cacheControl` hints say what is private and what
 * is never cached; how long the rest may be cached is this server's setting, the hints' default max
 * age. Without `caching`, or with a max age of 0, every answer says `no-store` and nothing is kept.
 */
export function cachingPlugins<TContext extends { principal: Principal }>(caching: Caching | undefined): ApolloServerPlugin<TContext>[] {
  const maxAge = caching?.catalogMaxAgeSeconds ?? 0;
  const cacheControl = ApolloServerPluginCacheControl({ defaultMaxAge: maxAge });
  if (!caching || maxAge === 0) return [cacheControl];
  const responseCache = responseCachePlugin<TContext>({
    cache: caching.store,
    sessionId: async ({ contextValue }) => sessionId(contextValue.principal),
  });
  return [cacheControl, responseCache];
}

/**
 * Tells browsers and proxies that an answer depends on the Authorization header: a browser shared by
 * two users (a sign-out, then another token) must not serve the first one's private answer, cached for
 * its max age, to the second. Anonymous callers, who send none, still share every public answer.
 */
export const varyByAuthorization: RequestHandler = (_request, response, next) => {
  response.vary("Authorization");
  next();
};

/**
 * A private answer is kept for the token that asked, and for no one else. Callers without a token
 * (anonymous, or everyone while the API is open in development) have no session: their private
 * answers are not cached at all.
 */
function sessionId(principal: Principal): string | null {
  return principal.kind === "token" ? `token:${principal.name}` : null;
}
