import { Semaphore } from "async-mutex";
import type { Db } from "mongodb";
import { SALES_STATS_COMMANDS } from "./stats";

/**
 * The part of the driver's connection pool one request may hold at once: a tenth. One request fanning out
 * to many parents (2,000 `_entities` with `alsoBought`) used to hold every connection, failing its own
 * fields with DATABASE_UNAVAILABLE and stalling every other caller; held to a tenth, it waits for itself
 * and nine such requests together still leave connections free.
 */
export const REQUEST_POOL_FRACTION = 0.1;

/** Every read of one request goes through its share; a command sent outside it is a command nobody bounds. */
export interface PoolShare {
  /** How many connections the request may hold at once. */
  readonly connections: number;
  /** Runs `send`, which holds at most `connections` pooled connections at once, when that many are free in the share. */
  use<T>(connections: number, send: () => Promise<T>): Promise<T>;
}

/**
 * The connections one request may hold out of `db`'s pool: a tenth of `maxPoolSize` (100 unless the URI
 * says otherwise), at least SALES_STATS_COMMANDS (5): `salesStats`' five commands side by side are the widest read, which a smaller share could not hold. A pool without a limit (`maxPoolSize=0`) cannot be
 * exhausted, and its requests are not limited either.
 */
export function requestPoolShare(db: Db): number {
  const poolSize = db.client.options.maxPoolSize;
  return poolSize === 0 ? Infinity : Math.max(SALES_STATS_COMMANDS, Math.floor(poolSize * REQUEST_POOL_FRACTION));
}

/** A request's own share, in first-come order: its reads wait for each other, never for other requests'. */
export function createPoolShare(connections: number): PoolShare {
  if (!Number.isFinite(connections)) return { connections, use: (_connections, send) => send() };
  const semaphore = new Semaphore(connections);
  return {
    connections,
    // A read wider than the share (none is, with the share at least SALES_STATS_COMMANDS) would otherwise wait forever.
    use: (weight, send) => semaphore.runExclusive(send, Math.min(weight, connections)),
  };
}
