import type { Db } from "mongodb";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PurchaseStorage } from "../sales/purchases";
import { countOutliers } from "../sales/stats";

/** One server's metrics, in a registry of its own so that several servers can run in one process. */
export interface ServerMetrics {
  registry: Registry;
  observeRequest(operation: string, seconds: number): void;
  countDatabaseCommand(command: string): void;
  countPurchase(storage: PurchaseStorage): void;
  /** One shared write of extra sales of one book started, carrying `purchases` of them. */
  observePurchaseBatch(purchases: number): void;
}

// A batch carries at most PURCHASE_BATCH_MAX purchases (1,000 at most): powers of two up to it.
const PURCHASE_BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

// Operation names come from clients; past this many distinct ones, the rest share one label value
// so that a client inventing names cannot grow the metrics without bound.
const MAX_OPERATION_LABELS = 100;
export const OTHER_OPERATIONS = "other";

export function createServerMetrics(db: Db): ServerMetrics {
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
  const purchaseBatches = new Histogram({
    name: "bookstore_purchase_batch_size",
    help: "Purchases per shared write of one outlier's extra sales: _count is the writes, _sum the purchases they carried.",
    buckets: PURCHASE_BATCH_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: "bookstore_outlier_books",
    help: "Books flagged has_extras, counted in the database at each scrape.",
    registers: [registry],
    async collect() {
      this.set(await countOutliers(db));
    },
  });
  const knownOperations = new Set<string>();
  const operationLabel = (operation: string) => {
    if (knownOperations.has(operation)) return operation;
    if (knownOperations.size >= MAX_OPERATION_LABELS) return OTHER_OPERATIONS;
    knownOperations.add(operation);
    return operation;
  };
  return {
    registry,
    observeRequest: (operation, seconds) => requestDuration.observe({ operation: operationLabel(operation) }, seconds),
    countDatabaseCommand: (command) => void commandsSent.set(command, (commandsSent.get(command) ?? 0) + 1),
    countPurchase: (storage) => purchasesRecorded.inc({ storage }),
    observePurchaseBatch: (purchases) => purchaseBatches.observe(purchases),
  };
}
