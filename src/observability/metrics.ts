import type { CacheBreakerState, CacheObservers } from "../graphql/caching/caching";
import type { CompiledWhen, InterpretedReason } from "../graphql/execution/compiled-execution";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PurchaseStorage } from "../sales/documents";
import type { LiveField, LiveSalesObservers } from "../graphql/live/live-sales";
import type { RestartReason } from "../graphql/live/change-feed";
import { isOperationLabel } from "./operation-names";

/** One server's metrics, in a registry of its own so that several servers can run in one process. */
export interface ServerMetrics {
  registry: Registry;
  observeRequest(operation: string, seconds: number): void;
  countDatabaseCommand(command: string): void;
  countPurchase(storage: PurchaseStorage): void;
  /** One shared write of extra sales of one book started, carrying `purchases` of them. */
  observeSharedWrite(purchases: number): void;
  /** What the Redis response cache reports: reads and writes given up or not sent, and its breaker's state. */
  responseCache: CacheObservers;
  /** A subscriptions connection was acknowledged (1) or closed (-1); `token` says whether it presented a bearer token. */
  countConnection(token: boolean, open: 1 | -1): void;
  /** What the server's live sales report: subscriptions, events delivered and conflated, change-stream restarts. */
  live: LiveSalesObservers;
  /** An operation ran through graphql-js rather than compiled, and why. */
  countInterpretedOperation(reason: InterpretedReason): void;
  /** An operation was compiled, before the first request or by one. */
  countCompiledOperation(at: CompiledWhen): void;
}

const CACHE_BREAKER_STATES: readonly CacheBreakerState[] = ["closed", "half_open", "open"];

// A shared write carries at most PURCHASE_BATCH_MAX purchases (1,000 at most): powers of two up to it.
const SHARED_WRITE_SIZE_BOUNDS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

// Operation names come from clients, so their labels are bounded in number and in bytes: with at most this many
// names of at most 64 bytes (isOperationLabel), a scrape stays under 256 KB however many names clients invent
// (test/api/metrics.test.ts measures it).
export const MAX_OPERATION_LABELS = 100;
export const OTHER_OPERATIONS = "other";
/** The label of requests that name no operation. */
export const ANONYMOUS_OPERATION = "anonymous";
/** The label of requests whose operation could not be determined (unparsable, invalid, or not in the document). */
export const UNRESOLVED_OPERATION = "unresolved";

/**
 * The label of each operation name. The names listed (METRICS_OPERATIONS: the storefront's own operations) always
 * have their own, whoever came first; other names take the labels left, first come first served, and once these
 * are gone share `other`, as do names too long or not a GraphQL name.
 */
function operationLabeller(listedOperations: readonly string[]): (operation: string) => string {
  const labelled = new Set([ANONYMOUS_OPERATION, UNRESOLVED_OPERATION, ...listedOperations]);
  return (operation) => {
    if (labelled.has(operation)) return operation;
    if (labelled.size >= MAX_OPERATION_LABELS || !isOperationLabel(operation)) return OTHER_OPERATIONS;
    labelled.add(operation);
    return operation;
  };
}

/**
 * One server's metrics; `listedOperations` are the operation names that always have a label of their
 * own, and `countOutliers` asks the database at each scrape how many books are outliers.
 */
export function createServerMetrics(countOutliers: () => Promise<number>, listedOperations: readonly string[] = []): ServerMetrics {
  const registry = new Registry();
  const requestDuration = new Histogram({
    name: "bookstore_graphql_request_duration_seconds",
    help: "Time from receiving a GraphQL request to sending its response, by operation name.",
    labelNames: ["operation"] as const,
    registers: [registry],
  });
  // Counted in a plain map and handed over at each scrape: prom-client checks and hashes the labels of
  // every increment, which every command of every request would pay.
  const commandsSent = new Map<string, number>();
  new Counter({
    name: "bookstore_mongodb_commands_total",
    help: "Commands sent to MongoDB, by command name.",
    labelNames: ["command"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [command, count] of commandsSent) this.inc({ command }, count);
    },
  });
  const purchasesRecorded = new Counter({
    name: "bookstore_purchases_recorded_total",
    help: "Purchases recorded, by where they were stored: EMBEDDED in the book or in EXTRA_SALES pages.",
    labelNames: ["storage"] as const,
    registers: [registry],
  });
  const sharedWriteSizes = new Histogram({
    name: "bookstore_purchase_batch_size",
    help: "Purchases per shared write of one outlier's extra sales: _count is the writes, _sum the purchases they carried.",
    buckets: SHARED_WRITE_SIZE_BOUNDS,
    registers: [registry],
  });
  new Gauge({
    name: "bookstore_outlier_books",
    help: "Books flagged has_extras, counted in the database at each scrape.",
    registers: [registry],
    async collect() {
      this.set(await countOutliers());
    },
  });
  const operationLabel = operationLabeller(listedOperations);
  const responseCache = responseCacheMetrics(registry);
  const connections = new Gauge({
    name: "bookstore_subscription_connections",
    help: "Open WebSocket connections for subscriptions, once acknowledged: token yes when one presented a bearer token.",
    labelNames: ["token"] as const,
    registers: [registry],
  });
  const interpreted = counterByLabel(
    registry,
    "bookstore_graphql_interpreted_operations_total",
    "Operations executed by graphql-js rather than compiled by graphql-jit, which could not compile them.",
    "reason",
    INTERPRETED_REASONS,
  );
  const compiled = counterByLabel(
    registry,
    "bookstore_graphql_compiled_operations_total",
    "Operations compiled by graphql-jit, each once while it stays among the 1,000 kept: at start-up (the trusted documents') or by its first request.",
    "at",
    COMPILED_WHEN,
  );
  return {
    registry,
    observeRequest: (operation, seconds) => requestDuration.observe({ operation: operationLabel(operation) }, seconds),
    countDatabaseCommand: (command) => void commandsSent.set(command, (commandsSent.get(command) ?? 0) + 1),
    countPurchase: (storage) => purchasesRecorded.inc({ storage }),
    observeSharedWrite: (purchases) => sharedWriteSizes.observe(purchases),
    responseCache,
    countConnection: (token, open) => connections.inc({ token: token ? "yes" : "no" }, open),
    live: liveSalesMetrics(registry),
    countInterpretedOperation: (reason) => interpreted.inc({ reason }),
    countCompiledOperation: (at) => compiled.inc({ at }),
  };
}

const INTERPRETED_REASONS: readonly InterpretedReason[] = ["not_compilable"];
const COMPILED_WHEN: readonly CompiledWhen[] = ["startup", "first_request"];

const LIVE_FIELDS: readonly LiveField[] = ["bookSales", "bestsellers", "newBuyers"];
const RESTART_REASONS: readonly RestartReason[] = ["error", "history_lost", "invalidated"];
// From a write to its delivery: milliseconds on a quiet server, seconds behind a slow socket or a lagging stream.
const LAG_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A counter by one label, each of whose `values` exists from the start, at 0, so that rates work from the first scrape. */
function counterByLabel<Label extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: Label,
  values: readonly string[],
): Counter<Label> {
  const counter = new Counter({ name, help, labelNames: [label], registers: [registry] });
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<Label, string>>, 0);
  return counter;
}

/** The subscriptions' metrics; every label value exists from the start, at 0, so that rates work from the first scrape. */
function liveSalesMetrics(registry: Registry): LiveSalesObservers {
  const subscriptions = new Gauge({
    name: "bookstore_subscriptions",
    help: "Open subscriptions, by subscription field.",
    labelNames: ["field"] as const,
    registers: [registry],
  });
  // Counted in plain numbers and handed over at each scrape: a value is counted for each subscriber it reaches, and
  // prom-client's increment (a labels check and hash each, even through a bound child) cost more than the count.
  const deliveredCounts: Record<LiveField, number> = { bookSales: 0, bestsellers: 0, newBuyers: 0 };
  new Counter({
    name: "bookstore_subscription_events_delivered_total",
    help: "Values handed to subscribers' sockets, by subscription field.",
    labelNames: ["field"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const field of LIVE_FIELDS) this.inc({ field }, deliveredCounts[field]);
    },
  });
  const conflated = new Counter({
    name: "bookstore_subscription_events_conflated_total",
    help: "Values a subscriber never got because a later one replaced them (bookSales, bestsellers) or were dropped from its full queue (newBuyers, told in missedBefore), by field.",
    labelNames: ["field"] as const,
    registers: [registry],
  });
  const lag = new Histogram({
    name: "bookstore_subscription_lag_seconds",
    help: "From a write (its time on the primary) to the value showing it being handed to a subscriber's socket, by field.",
    labelNames: ["field"] as const,
    buckets: LAG_BOUNDS,
    registers: [registry],
  });
  const restarts = counterByLabel(
    registry,
    "bookstore_change_stream_restarts_total",
    "Times the change stream on sales was opened again: after an error (resumed where it was), after its history was lost (from now, every watched book read again), or after it was invalidated.",
    "reason",
    RESTART_REASONS,
  );
  for (const field of LIVE_FIELDS) {
    subscriptions.set({ field }, 0);
    conflated.inc({ field }, 0);
  }
  // Bound once per field: a value's lag is observed for each subscriber it reaches, and looking its labels up each time cost more than the observation.
  const lagOf = labelledBy(lag);
  const conflatedOf = labelledBy(conflated);
  return {
    onSubscription: (field, open) => subscriptions.inc({ field }, open),
    onDelivered: (field, lagSeconds) => {
      deliveredCounts[field] += 1;
      if (lagSeconds !== undefined) lagOf[field].observe(lagSeconds);
    },
    onConflated: (field, count) => conflatedOf[field].inc(count),
    onRestart: (reason) => restarts.inc({ reason }),
  };
}

/** A metric's child for each live field. */
function labelledBy<Child>(metric: { labels(labels: { field: LiveField }): Child }): Record<LiveField, Child> {
  return Object.fromEntries(LIVE_FIELDS.map((field) => [field, metric.labels({ field })])) as Record<LiveField, Child>;
}

/** The Redis response cache's metrics; they have samples only once a Redis cache reports (RESPONSE_CACHE_URL set). */
function responseCacheMetrics(registry: Registry): CacheObservers {
  const failures = new Counter({
    name: "bookstore_response_cache_failures_total",
    help: "Reads and writes of the Redis response cache that failed (reason error) or outlasted RESPONSE_CACHE_TIMEOUT_MS (reason timeout); each counted as a miss.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const skipped = new Counter({
    name: "bookstore_response_cache_skipped_total",
    help: "Reads and writes of the Redis response cache not sent because its circuit breaker was open.",
    registers: [registry],
  });
  const breakerState = new Gauge({
    name: "bookstore_response_cache_breaker_state",
    help: "The Redis response cache's circuit breaker: 1 for its current state (closed: Redis is asked; open: it is not; half_open: one request probes it), 0 for the others.",
    labelNames: ["state"] as const,
    registers: [registry],
  });
  return {
    onFailure: (reason) => failures.inc({ reason }),
    onSkipped: () => skipped.inc(),
    onBreakerState: (current) => {
      for (const state of CACHE_BREAKER_STATES) breakerState.set({ state }, state === current ? 1 : 0);
    },
  };
}
