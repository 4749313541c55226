import type { Db } from "mongodb";
import type { Principal } from "../auth/principal";
import type { ApiSettings } from "../config";
import type { ClaimReleases } from "../sales/claim-releases";
import type { FlaggedBooks } from "../sales/flagged-books";
import { createSalesLoaders, type SalesLoaders } from "../sales/loaders";

/** Built afresh for every request, so DataLoader caches never leak between requests. */
export interface GraphQLContext {
  db: Db;
  loaders: SalesLoaders;
  settings: ApiSettings;
  /** Who sent the request; `accessPlugin` checks it against every field an operation selects. */
  principal: Principal;
  /** Shared by every request of one server: the outliers it has seen, whose purchases go straight to their pages. */
  flaggedBooks: FlaggedBooks;
  /** Shared by every request of one server: the purchaseId claims whose release failed in an outage, retried until released. */
  claimReleases: ClaimReleases;
}

export function createContext(
  db: Db,
  settings: ApiSettings,
  principal: Principal,
  flaggedBooks: FlaggedBooks,
  claimReleases: ClaimReleases,
  batchLoads = true,
): GraphQLContext {
  return { db, loaders: createSalesLoaders(db, { batch: batchLoads }), settings, principal, flaggedBooks, claimReleases };
}
