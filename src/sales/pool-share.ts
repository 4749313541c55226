import { Semaphore } from "async-mutex";
import type { Db } from "mongodb";
import { PoolTimeSpentError } from "./errors";
import { SALES_STATS_COMMANDS } from "./stats";

/**
 * The part of the driver's connection pool one request may hold at once: a tenth. One request fanning out
 * to many parents (2,000 `_entities` with `alsoBought`) used to hold every connection, failing its own
 * fields with DATABASE_UNAVAILABLE and stalling every other caller; held to a tenth, it waits for itself
 * and nine such requests together still leave connections free.
 */
export const REQUEST_POOL_FRACTION = 0.1;

/**
 * The connection time a request may hold per unit of its cost (500 ms per database command it may send
 * for a parent, see `REQUEST_LIMITS`), so that the heaviest request allowed (a cost of 100,000) may hold its
 * tenth of the pool for the whole default time limit (10 s), and a lighter one in proportion.
 */
export const POOL_MS_PER_COST = 1;
/**
 * The connection time a request may hold per document its operation may examine: a thousand times what
 * mongod takes to examine one. Only a database slowed by something else (another load, a blocked
 * connection, a fail point) spends a request's time; spent, its further reads are refused, not queued for the pool.
 */
export const POOL_MS_PER_DOCUMENT = 10;
/** The least connection time any request may hold, whatever it weighs: a cheap query on a busy machine never runs out. */
export const MIN_POOL_MS = 2_000;

/** What a request weighs: its cost and the documents it may make the database examine (see `operationWeight`). */
export interface RequestWeight {
  cost: number;
  documents: number;
}

/** The connection time (connections × milliseconds held) a request of `weight` may hold. */
export function poolTimeFor({ cost, documents }: RequestWeight): number {
  return Math.max(MIN_POOL_MS, cost * POOL_MS_PER_COST + documents * POOL_MS_PER_DOCUMENT);
}

/** Every read of one request goes through its share; a command sent outside it is a command nobody bounds. */
export interface PoolShare {
  /** How many connections the request may hold at once. */
  readonly connections: number;
  /**
   * Runs `send`, which holds at most `connections` pooled connections at once, when that many are free in the
   * share; refused with PoolTimeSpentError, sending nothing, once the request has held its connection time.
   */
  use<T>(connections: number, send: () => Promise<T>): Promise<T>;
  /**
   * Bounds the connection time the request may hold by its weight (see `poolTimeFor`); until then it is
   * unbounded in time (a subscription's share lives as long as it does).
   */
  allow(weight: RequestWeight): void;
  /** The connection time the request has held so far, in connection-milliseconds. */
  readonly held: number;
}

/** A clock in milliseconds; tests pass their own, so that they count time instead of waiting for it. */
export type Clock = () => number;

/**
 * The connections one request may hold out of `db`'s pool: a tenth of `maxPoolSize` (100 unless the URI
 * says otherwise), at least SALES_STATS_COMMANDS (5): `salesStats`' five commands side by side are the widest read, which a smaller share could not hold. A pool without a limit (`maxPoolSize=0`) cannot be
 * exhausted, and its requests are not limited either.
 */
export function requestPoolShare(db: Db): number {
  const poolSize = db.client.options.maxPoolSize;
  return poolSize === 0 ? Infinity : Math.max(SALES_STATS_COMMANDS, Math.floor(poolSize * REQUEST_POOL_FRACTION));
}

/**
 * A request's own share, in first-come order: its reads wait for each other, never for other requests'. Each
 * read adds the connections it held × the time it held them to the request's connection time; a read that
 * comes after that time is spent is refused before it takes a connection, so a request slowed down cannot
 * keep its tenth of the pool busy for longer than its weight allows (reads already sent run to their end).
 */
export function createPoolShare(connections: number, now: Clock = performanceNow): PoolShare {
  return new RequestPoolShare(connections, now);
}

const performanceNow: Clock = () => performance.now();

/**
 * A class, not an object literal with a getter: V8's scavenges keep an object made with accessors of its own
 * alive, and all its closures hold, until the next full collection (docs/benchmarks/analysis.md, "What survived
 * the scavenges"); a prototype's accessor is made once.
 */
class RequestPoolShare implements PoolShare {
  private readonly semaphore: Semaphore | undefined;
  private allowed = Infinity;
  private spent = 0;

  constructor(
    readonly connections: number,
    private readonly now: Clock,
  ) {
    this.semaphore = Number.isFinite(connections) ? new Semaphore(connections) : undefined;
  }

  // A read wider than the share (none is, with the share at least SALES_STATS_COMMANDS) would otherwise wait forever.
  use<T>(weight: number, send: () => Promise<T>): Promise<T> {
    const { semaphore, connections } = this;
    return semaphore === undefined ? this.timed(weight, send) : this.exclusive(semaphore, Math.min(weight, connections), send);
  }

  /**
   * Holds `weight` of the semaphore while `send` runs. Not async-mutex's `runExclusive`: it is shipped down-levelled
   * to tslib's generator helpers, and under load their state, each reply awaited through it included, outlived the
   * young generation (docs/benchmarks/analysis.md); a native async function around `acquire` and its release does not.
   */
  private async exclusive<T>(semaphore: Semaphore, weight: number, send: () => Promise<T>): Promise<T> {
    const [, release] = await semaphore.acquire(weight);
    try {
      return await this.timed(weight, send);
    } finally {
      release();
    }
  }

  allow(weight: RequestWeight): void {
    this.allowed = poolTimeFor(weight);
  }

  get held(): number {
    return this.spent;
  }

  private async timed<T>(weight: number, send: () => Promise<T>): Promise<T> {
    if (this.spent >= this.allowed) throw new PoolTimeSpentError(this.spent, this.allowed);
    const start = this.now();
    try {
      return await send();
    } finally {
      this.spent += weight * (this.now() - start);
    }
  }
}
