import type { ApolloServerPlugin, GraphQLRequestListener } from "@apollo/server";
import type { Db } from "mongodb";
import type { Logger } from "pino";
import type { Principal } from "../../auth/principal";
import { DEFAULT_REQUEST_TIMEOUT_MS, type ApiSettings, type PurchaseSharingSettings } from "../../config";
import type { ServerMetrics } from "../../observability/metrics";
import { PURCHASE_ID_TIMING } from "../../sales/keyed-purchases";
import { LiveSales } from "../live/live-sales";
import { PurchaseService } from "../../sales/purchase-service";
import type { PurchaseOutcome, PurchaseRequest } from "../../sales/purchases";
import { createRequestServices, type ReleasableRequestServices, type RequestServiceOptions } from "../../sales/request-services";
import { RecentSalesStats } from "../../sales/stats";

/**
 * Built afresh for every request, so DataLoader caches never leak between requests. Resolvers reach
 * the data only through its services, which hold the request's share of the pool: there is no `db` here.
 */
export interface GraphQLContext extends ReleasableRequestServices {
  settings: ApiSettings;
  /** Who sent the request; the operation pipeline (pipeline.ts) checks it against every field an operation selects. */
  principal: Principal;
  /** Records this request's purchases through the server's purchase service. */
  purchases: RequestPurchases;
  /** The server's live sales, which subscriptions listen to. */
  live: LiveSales;
}

/** One request's way to the server's purchase service, with the request's settings. */
export interface RequestPurchases {
  record(request: PurchaseRequest): Promise<PurchaseOutcome>;
  /** How many purchases each recorded purchase's write carried, in order, for the request's log line. */
  readonly writeSizes: readonly number[];
}

/** What a server's state is built from: the production server's options, or a test's. */
export interface ServerStateOptions {
  db: Db;
  /** Whether concurrent purchases of one outlier share their writes, and how many per write; default on, 100. */
  purchaseBatching?: PurchaseSharingSettings | undefined;
  /** How long a purchaseId's claim is leased before a retry may take it over; default 2 minutes. */
  purchaseIdLeaseMs?: number | undefined;
  /** A purchase's transaction stops retrying when its request is answered REQUEST_TIMEOUT, not later; default 10 s. */
  requestTimeoutMs?: number | undefined;
  logger?: Logger;
  /** Only the benchmark turns this off, to measure the N+1 queries that batching avoids. */
  batchLoads?: boolean | undefined;
}

/** What every request of one server shares, built once when the server starts: the only state a server keeps. */
export interface ServerState {
  purchases: PurchaseService;
  live: LiveSales;
  /** A request's context: its own services over the server's shared state. */
  contextFor(settings: ApiSettings, principal: Principal): GraphQLContext;
  /** After the requests in flight, which may still hand the purchase service releases, and before the database closes. */
  stop(): Promise<void>;
}

/** The one place a server's state is built, for `startHttpServer` and the tests' API alike; `metrics` hear what it does. */
export function createServerState(
  { db, purchaseBatching, purchaseIdLeaseMs, requestTimeoutMs, logger, batchLoads }: ServerStateOptions,
  metrics?: ServerMetrics,
): ServerState {
  const timing = {
    ...PURCHASE_ID_TIMING,
    leaseMs: purchaseIdLeaseMs ?? PURCHASE_ID_TIMING.leaseMs,
    transactionMs: requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
  const observers = metrics ? { onSharedWrite: metrics.observeSharedWrite, onRecorded: metrics.countPurchase } : {};
  const purchases = new PurchaseService(db, { ...(purchaseBatching ? { sharing: purchaseBatching } : {}), observers, timing });
  const live = new LiveSales(db, { ...(metrics ? { observers: metrics.live } : {}), ...(logger ? { logger } : {}) });
  const salesStats = new RecentSalesStats(db);
  // Made once per settings, not per request: every server passes the same settings to each of its requests.
  let serviceOptions: RequestServiceOptions | undefined;
  const serviceOptionsFor = (settings: ApiSettings) =>
    serviceOptions?.settings === settings ? serviceOptions : (serviceOptions = { settings, salesStats, batchLoads });
  return {
    purchases,
    live,
    contextFor: (settings, principal) =>
      new RequestContextValue({
        parts: {
          services: createRequestServices(db, serviceOptionsFor(settings)),
          settings,
          principal,
          purchases: requestPurchases(purchases, settings),
          live,
        },
      }),
    stop: async () => {
      await purchases.stop();
      await live.stop();
    },
  };
}

/**
 * Releases each request's context value once its answer is ready (`RequestContextValue.release`: its services and
 * the rest of its parts): last among the plugins, so every other plugin's `willSendResponse` has run up to its first
 * wait; none of them reads the context after that.
 */
export function releaseServicesPlugin(): ApolloServerPlugin<GraphQLContext> {
  // The same listener for every request: it keeps nothing between the hooks.
  const listener: GraphQLRequestListener<GraphQLContext> = {
    willSendResponse: async ({ contextValue }) => contextValue.release(),
  };
  return { requestDidStart: async () => listener };
}

/** What a request's context value holds, in one object that Apollo's copy of the context shares with it. */
interface RequestParts {
  services: ReleasableRequestServices;
  settings: ApiSettings;
  principal: Principal;
  purchases: RequestPurchases;
  live: LiveSales;
}

/**
 * A request's context value: one own property, the holder of its parts, and its getters on the prototype. Apollo
 * copies the context shallowly, and its gateway interface keeps the copy reachable past every scavenge until a full
 * collection (docs/benchmarks/analysis.md); emptying the holder at `release` lets go of the parts from the copy and
 * the original at once, so the copy keeps one reference instead of the request's services, purchase log and weight.
 */
class RequestContextValue implements GraphQLContext {
  constructor(private readonly holder: { parts?: RequestParts | undefined }) {}

  get loaders(): ReleasableRequestServices["loaders"] {
    return this.parts().services.loaders;
  }

  get catalog(): ReleasableRequestServices["catalog"] {
    return this.parts().services.catalog;
  }

  get customers(): ReleasableRequestServices["customers"] {
    return this.parts().services.customers;
  }

  get settings(): ApiSettings {
    return this.parts().settings;
  }

  get principal(): Principal {
    return this.parts().principal;
  }

  get purchases(): RequestPurchases {
    return this.parts().purchases;
  }

  get live(): LiveSales {
    return this.parts().live;
  }

  weigh(weight: Parameters<ReleasableRequestServices["weigh"]>[0]): void {
    this.parts().services.weigh(weight);
  }

  release(): void {
    this.holder.parts?.services.release();
    this.holder.parts = undefined;
  }

  private parts(): RequestParts {
    const { parts } = this.holder;
    if (!parts) throw new Error("A request's context was used after its answer was ready: every resolver must finish before it is.");
    return parts;
  }
}

function requestPurchases(service: PurchaseService, settings: ApiSettings): RequestPurchases {
  return new RequestPurchaseLog(service, settings);
}

/**
 * A class, its method and getter on the prototype, and its list made at the first purchase: most requests record
 * none, and every request's context outlives the scavenges (see `releaseServicesPlugin`) with what it holds.
 */
class RequestPurchaseLog implements RequestPurchases {
  private sizes: number[] | undefined;

  constructor(
    private readonly service: PurchaseService,
    private readonly settings: ApiSettings,
  ) {}

  get writeSizes(): readonly number[] {
    return this.sizes ?? NO_WRITES;
  }

  async record(request: PurchaseRequest): Promise<PurchaseOutcome> {
    const outcome = await this.service.record(request, this.settings);
    (this.sizes ??= []).push(outcome.purchasesInWrite);
    return outcome;
  }
}

const NO_WRITES: readonly number[] = [];
