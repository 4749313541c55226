import { LRUCache } from "lru-cache";
import type { Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { extraSalesCollection, salesCollection, type SalesDocument } from "./documents";
import { checkPageSize } from "./books";

/** How many overflow pages the outliers have, summarised over the outliers only. */
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
  largestBooks: SalesDocument[];
  /** The settings of the process asking, which new books and purchases follow. */
  outlierThreshold: number;
  extraSalesPageSize: number;
}

export const DEFAULT_LARGEST_BOOKS = 10;

/** One round trip per figure, run concurrently; the page distribution is grouped in the database. */
export async function retrieveSalesStats(db: Db, settings: OutlierSettings, largest = DEFAULT_LARGEST_BOOKS): Promise<SalesStats> {
  checkPageSize(largest, "top");
  const [books, outliers, extraSalesDocuments, pagesHistogram, largestBooks] = await Promise.all([
    salesCollection(db).countDocuments(),
    countOutliers(db),
    extraSalesCollection(db).countDocuments(),
    retrievePagesPerBookHistogram(db),
    retrieveLargestBooks(db, largest),
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

async function retrieveLargestBooks(db: Db, limit: number): Promise<SalesDocument[]> {
  if (limit === 0) return [];
  return salesCollection(db).find().sort({ purchase_count: -1, _id: 1 }).limit(limit).toArray();
}

/** How many books have each number of pages: `{pages, books}` in ascending `pages`. */
export interface PagesHistogramBar {
  pages: number;
  books: number;
}

/**
 * Groups twice in the database so that only one row per distinct page count comes back,
 * however many outliers there are. ($percentile would do it in one stage, but needs MongoDB 7.0.)
 */
async function retrievePagesPerBookHistogram(db: Db): Promise<PagesHistogramBar[]> {
  return extraSalesCollection(db)
    .aggregate<PagesHistogramBar>([
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

// One cache per database handle, so every request of a process shares it; a test's fresh database starts empty.
const recentStats = new WeakMap<Db, LRUCache<number, SalesStats, OutlierSettings>>();

/**
 * `retrieveSalesStats`, at most SALES_STATS_CACHE_MS old. Its five database commands run once per
 * `top` and period however many requests (or aliases in one request) ask at once: the figures are
 * public, and uncached, one anonymous request of 15 aliases sent 75 commands and emptied the pool.
 */
export async function retrieveRecentSalesStats(db: Db, settings: OutlierSettings, largest = DEFAULT_LARGEST_BOOKS): Promise<SalesStats> {
  checkPageSize(largest, "top");
  let cache = recentStats.get(db);
  if (!cache) {
    cache = new LRUCache<number, SalesStats, OutlierSettings>({
      max: 101,
      ttl: SALES_STATS_CACHE_MS,
      fetchMethod: (top, _stale, { context }) => retrieveSalesStats(db, context, top),
    });
    recentStats.set(db, cache);
  }
  const stats = await cache.fetch(largest, { context: settings });
  if (!stats) throw new Error("salesStats cache returned nothing");
  // The settings are the asking process's own, never the database's: they are not cached.
  return { ...stats, outlierThreshold: settings.outlierThreshold, extraSalesPageSize: settings.extraSalesPageSize };
}
