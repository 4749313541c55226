import { LRUCache } from "lru-cache";
import type { Db, Document } from "mongodb";
import type { OutlierSettings } from "../config";
import { extraSalesCollection, salesCollection, type BookDocument } from "./documents";
import { checkWindowSize, countBooks, embeddedBuyersProjection } from "./books";
import { LARGEST_FIRST } from "./indexes";

/** How many extra_sales pages the outliers have, summarised over the outliers only. */
export interface OverflowPagesDistribution {
  max: number;
  /** The 50th percentile, nearest rank. */
  median: number;
  /** The 99th percentile, nearest rank. */
  p99: number;
}

/** The state of the catalog's outlier pattern, for `salesStats` and `npm run report`. */
export interface SalesStats {
  books: number;
  /** Books flagged `has_extras`. */
  outliers: number;
  extraSalesDocuments: number;
  overflowPagesPerOutlier: OverflowPagesDistribution;
  /** Books with the most purchases, largest first (ties by id). */
  largestBooks: BookDocument[];
  /** The settings of the process asking, which new books and purchases follow. */
  outlierThreshold: number;
  extraSalesPageSize: number;
}

export const DEFAULT_LARGEST_BOOKS = 10;

/** The commands `retrieveSalesStats` sends side by side. */
export const SALES_STATS_COMMANDS = 5;

/**
 * One round trip per figure, run concurrently; the page distribution is grouped in the database.
 * Nothing here reads the catalog book by book: the two collection sizes are metadata counts (see
 * `countBooks` for where they can be off), outliers come from the flag's index, the largest books
 * from the `purchase_count` index, and pages per book from the `(book_id, page)` index.
 */
export async function retrieveSalesStats(
  db: Db,
  settings: OutlierSettings,
  largest = DEFAULT_LARGEST_BOOKS,
  {
    embeddedBuyers = 0,
  }: { /** How many embedded buyers of each largest book to read (see `embeddedBuyersProjection`). */ embeddedBuyers?: number } = {},
): Promise<SalesStats> {
  checkWindowSize(largest, "top");
  const [books, outliers, extraSalesDocuments, pagesHistogram, largestBooks] = await Promise.all([
    countBooks(db),
    countOutliers(db),
    extraSalesCollection(db).estimatedDocumentCount(),
    retrievePagesPerBookHistogram(db),
    retrieveLargestBooks(db, largest, embeddedBuyersProjection(embeddedBuyers)),
  ]);
  return {
    books,
    outliers,
    extraSalesDocuments,
    overflowPagesPerOutlier: summarisePagesHistogram(pagesHistogram),
    largestBooks,
    outlierThreshold: settings.outlierThreshold,
    extraSalesPageSize: settings.extraSalesPageSize,
  };
}

/** Cheap enough for every metrics scrape: a count on one boolean field. */
export async function countOutliers(db: Db): Promise<number> {
  return salesCollection(db).countDocuments({ has_extras: true });
}

/**
 * The first `limit` entries of the `purchase_count_-1__id_1` index, so `limit` books are read whatever the
 * catalog's size; each with the fields `projection` leaves.
 */
export async function retrieveLargestBooks<T extends Document = BookDocument>(db: Db, limit: number, projection: Document): Promise<T[]> {
  if (limit === 0) return [];
  return salesCollection(db).find<T>({}, { projection }).sort(LARGEST_FIRST).limit(limit).toArray();
}

/** How many books have each number of pages: `{pages, books}` in ascending `pages`. */
export interface PagesHistogramBar {
  pages: number;
  books: number;
}

/**
 * Walks the `(book_id, page)` index in order rather than the pages themselves, and groups twice in the database so that only one row per distinct page count comes back,
 * however many outliers there are. ($percentile would do it in one stage, but needs MongoDB 7.0.)
 */
async function retrievePagesPerBookHistogram(db: Db): Promise<PagesHistogramBar[]> {
  return extraSalesCollection(db)
    .aggregate<PagesHistogramBar>([
      { $sort: { book_id: 1, page: 1 } },
      { $group: { _id: "$book_id", pages: { $sum: 1 } } },
      { $group: { _id: "$pages", books: { $sum: 1 } } },
      { $project: { _id: 0, pages: "$_id", books: 1 } },
      { $sort: { pages: 1 } },
    ])
    .toArray();
}

/** Max, median and 99th percentile (nearest rank) of a histogram sorted by ascending `pages`; all 0 when it is empty. */
export function summarisePagesHistogram(histogram: readonly PagesHistogramBar[]): OverflowPagesDistribution {
  const total = histogram.reduce((sum, bar) => sum + bar.books, 0);
  const percentile = (fraction: number) => {
    const rank = Math.max(1, Math.ceil(fraction * total));
    let seen = 0;
    return histogram.find((bar) => (seen += bar.books) >= rank)?.pages ?? 0;
  };
  return { max: histogram.at(-1)?.pages ?? 0, median: percentile(0.5), p99: percentile(0.99) };
}

/** How long salesStats answers from its cache: figures a few seconds old, for a load on the database that no client controls. */
export const SALES_STATS_CACHE_MS = 5_000;

/**
 * `retrieveSalesStats`, at most SALES_STATS_CACHE_MS old, shared by every request of one server. Its
 * five database commands run once per `top` and window however many requests (or aliases in one
 * request) ask at once: the figures are public, and uncached, one anonymous request of 15 aliases sent
 * 75 commands and emptied the pool. Keyed by what a request may vary: `top` and how many embedded
 * buyers its selection shows.
 */
export class RecentSalesStats {
  private readonly cache: LRUCache<string, SalesStats, OutlierSettings>;

  constructor(db: Db) {
    this.cache = new LRUCache<string, SalesStats, OutlierSettings>({
      max: 256,
      ttl: SALES_STATS_CACHE_MS,
      fetchMethod: (key, _stale, { context }) => {
        const [top, buyers] = key.split(" ").map(Number);
        return retrieveSalesStats(db, context, top, { embeddedBuyers: buyers });
      },
    });
  }

  async fetch(
    settings: OutlierSettings,
    largest = DEFAULT_LARGEST_BOOKS,
    { embeddedBuyers = 0 }: { embeddedBuyers?: number } = {},
  ): Promise<SalesStats> {
    checkWindowSize(largest, "top");
    const stats = await this.cache.fetch(`${largest} ${embeddedBuyers}`, { context: settings });
    if (!stats) throw new Error("salesStats cache returned nothing");
    // The settings are the asking process's own, never the database's: they are not cached.
    return { ...stats, outlierThreshold: settings.outlierThreshold, extraSalesPageSize: settings.extraSalesPageSize };
  }
}
