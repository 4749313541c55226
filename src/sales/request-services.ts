import type { Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { createBook, type NewBook } from "./books";
import { browseCatalog, countCatalog, termCounter, type CatalogBrowse, type CatalogQuery, type CatalogWindow } from "./catalog";
import type { BookDocument, BookId } from "./documents";
import { createSalesLoaders, type SalesLoaders } from "./loaders";
import { createPoolShare, requestPoolShare, type PoolShare, type RequestWeight } from "./pool-share";
import { countBooksPurchased, retrieveBooksPurchased, type PurchaseHistoryWindow } from "./purchase-history";
import { retrieveAlsoBought, type RecommendedBookId } from "./recommendations";
import { DEFAULT_LARGEST_BOOKS, SALES_STATS_COMMANDS, type RecentSalesStats, type SalesStats } from "./stats";

/** The catalog as one request reads and adds to it. */
export interface CatalogService {
  browse(browse: CatalogBrowse, window: Parameters<typeof browseCatalog>[2], embeddedBuyers: number): Promise<CatalogWindow>;
  count(query: CatalogQuery): Promise<number>;
  /** The server's figures, a few seconds old at most. */
  salesStats(top: number | null | undefined, options: { embeddedBuyers: number }): Promise<SalesStats>;
  /** The ids of the books `bookId`'s buyers also bought (see `retrieveAlsoBought`). */
  alsoBought(bookId: BookId, first: number): Promise<RecommendedBookId[]>;
  addBook(book: NewBook): Promise<BookDocument>;
}

/** A customer's side of the sales, as one request reads it: the books they bought. */
export interface CustomerService {
  booksPurchased(customerId: string, afterId: BookId | null, first: number): Promise<PurchaseHistoryWindow>;
  countBooksPurchased(customerId: string): Promise<number>;
}

/**
 * What one request's resolvers reach the data through (Coral Talk's per-request loaders, as services).
 * Each read goes through the request's share of the pool with the number of commands it sends side by
 * side said here, beside the call that sends them: a resolver holds no database and counts nothing.
 */
export interface RequestServices {
  loaders: SalesLoaders;
  catalog: CatalogService;
  customers: CustomerService;
  /** Bounds the connection time the request's reads may hold by what it weighs (see `poolTimeFor`), once it is weighed. */
  weigh(weight: RequestWeight): void;
}

/** A request's services, and their end. */
export interface ReleasableRequestServices extends RequestServices {
  /**
   * Lets go of the share, loaders and services once the request is answered: Apollo Server keeps the context
   * reachable after that until the next full collection (see `cacheControlHeaderPlugin`), and with it every book
   * and reply the loaders hold. A use after this is a mistake, and throws.
   */
  release(): void;
}

export interface RequestServiceOptions {
  settings: OutlierSettings;
  salesStats: RecentSalesStats;
  /** Only the benchmark turns this off, to measure the N+1 queries that batching avoids. */
  batchLoads?: boolean;
}

/**
 * Built on first use: every request weighs itself, but most use one service or none (`{ __typename }`, a cached
 * answer), and the share, loaders and services cost more than the request's own work there. A weight given
 * before the share exists bounds it from its start.
 */
export function createRequestServices(db: Db, options: RequestServiceOptions): ReleasableRequestServices {
  return new LazyRequestServices(db, options);
}

/**
 * The getters live on the prototype: Apollo Server copies a request's context (`Object.assign` onto an object of
 * the same prototype) before any plugin sees it, which would call own getters and build everything at once.
 */
class LazyRequestServices implements ReleasableRequestServices {
  private weight: RequestWeight | undefined;
  private built: RequestServices | undefined;
  private released = false;

  constructor(
    private readonly db: Db,
    private readonly options: RequestServiceOptions,
  ) {}

  get loaders(): SalesLoaders {
    return this.services().loaders;
  }

  get catalog(): CatalogService {
    return this.services().catalog;
  }

  get customers(): CustomerService {
    return this.services().customers;
  }

  weigh(weight: RequestWeight): void {
    this.weight = weight;
    this.built?.weigh(weight);
  }

  release(): void {
    this.released = true;
    this.built = undefined;
  }

  private services(): RequestServices {
    if (this.released)
      throw new Error("A request's services were used after its answer was ready: every resolver must finish before it is.");
    return (this.built ??= buildRequestServices(this.db, this.options, this.weight));
  }
}

function buildRequestServices(
  db: Db,
  { settings, salesStats, batchLoads = true }: RequestServiceOptions,
  weight: RequestWeight | undefined,
): RequestServices {
  const share = createPoolShare(requestPoolShare(db));
  if (weight) share.allow(weight);
  return new BuiltRequestServices(db, share, createSalesLoaders(db, { batch: batchLoads, share }), settings, salesStats);
}

/** Each service on its first use too: a request by id reads through the loaders alone, a listing through the catalog. A class for its getters (see `createPoolShare`). */
class BuiltRequestServices implements RequestServices {
  private catalogService: CatalogService | undefined;
  private customerService: CustomerService | undefined;

  constructor(
    private readonly db: Db,
    private readonly share: PoolShare,
    readonly loaders: SalesLoaders,
    private readonly settings: OutlierSettings,
    private readonly salesStats: RecentSalesStats,
  ) {}

  get catalog(): CatalogService {
    return (this.catalogService ??= catalogService(this.db, this.share, this.loaders, this.settings, this.salesStats));
  }

  get customers(): CustomerService {
    return (this.customerService ??= customerService(this.db, this.share));
  }

  weigh(weight: RequestWeight): void {
    this.share.allow(weight);
  }
}

function catalogService(
  db: Db,
  share: PoolShare,
  loaders: SalesLoaders,
  settings: OutlierSettings,
  stats: RecentSalesStats,
): CatalogService {
  const countTerm = termCounter(db);
  return {
    // A window's queries go one after another, so one connection of the request's share serves them.
    browse: (browse, window, embeddedBuyers) => share.use(1, () => browseCatalog(db, browse, window, embeddedBuyers, countTerm)),
    count: (query) => share.use(1, () => countCatalog(db, query)),
    // Five commands side by side, sent once for every request that asks within the cache's age.
    salesStats: (top, options) => share.use(SALES_STATS_COMMANDS, () => stats.fetch(settings, top ?? DEFAULT_LARGEST_BOOKS, options)),
    // The sample is read by the request's loader, one query for every book asked; the aggregation holds one connection of the share.
    alsoBought: (bookId, first) => retrieveAlsoBought(db, bookId, first, { sampleOf: (id) => loaders.alsoBoughtSample.load(id), share }),
    addBook: (book) => createBook(db, book, settings),
  };
}

function customerService(db: Db, share: PoolShare): CustomerService {
  // Two queries side by side, each per customer: one window cannot serve another customer's.
  return {
    booksPurchased: (customerId, afterId, first) => share.use(2, () => retrieveBooksPurchased(db, customerId, afterId, first)),
    countBooksPurchased: (customerId) => share.use(2, () => countBooksPurchased(db, customerId)),
  };
}
