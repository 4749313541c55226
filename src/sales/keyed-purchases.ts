import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "mongodb";
import { DEFAULT_PURCHASE_ID_LIFETIME_HOURS, type OutlierSettings, type PurchaseIdSettings } from "../config";
import { isDatabaseUnavailable } from "../db/errors";
import { helloOf, usesTransactions } from "../db/topology";
import type { ClaimReleases } from "./claim-releases";
import { findClaim, newClaim, releaseClaim, storeOutcome, takeClaim, type ClaimId, type Taking } from "./claims";
import type { ClaimDocument } from "./documents";
import { PurchaseIdConflictError, PurchaseInProgressError } from "./errors";
import type { KnownOutlier, KnownOutliers } from "./known-outliers";
import { recordInTransaction } from "./purchase-transactions";
import { extraSaleAnswer, recordPurchase, type PurchaseOutcome, type PurchaseRequest, type RecordedPurchase } from "./purchases";
import { replay } from "./replay";
import type { SharedWrites } from "./shared-writes";

export interface PurchaseIdTiming {
  /** How long an owner may take before its claim can be taken over; far beyond any request's life. */
  leaseMs: number;
  /** How long a retry waits for the owner's outcome before answering PURCHASE_IN_PROGRESS. */
  waitMs: number;
  /** How often a waiting retry looks at the claim. */
  pollIntervalMs: number;
  /** How long a purchase's transaction may keep retrying write conflicts; the API sets its request time limit, after which the client has an answer. */
  transactionMs: number;
}

/**
 * The lease is two minutes because requests are cut off after seconds (the per-request limit and
 * the driver's timeouts), so an owner still writing after two minutes is one that has died.
 */
export const PURCHASE_ID_TIMING: PurchaseIdTiming = { leaseMs: 120_000, waitMs: 3_000, pollIntervalMs: 25, transactionMs: 10_000 };

/** A purchase sent with its purchaseId, the purchase's idempotency key (the glossary's "purchaseId and claim"). */
export type KeyedPurchaseRequest = PurchaseRequest & { purchaseId: string };

export type KeyedPurchaseSettings = Pick<OutlierSettings, "outlierThreshold"> & Partial<PurchaseIdSettings>;

/** What a keyed purchase uses of the process's purchase service (`PurchaseService`). */
export interface KeyedPurchaseService {
  knownOutliers: KnownOutliers;
  claimReleases: ClaimReleases;
  sharedWrites: SharedWrites | undefined;
  timing: PurchaseIdTiming;
}

/** Where a request stands with a key: it recorded the purchase, another request holds the claim, or there is none. */
type ClaimState = { kind: "recorded"; outcome: PurchaseOutcome } | { kind: "held"; claim: ClaimDocument } | { kind: "vanished" };

/**
 * Records a purchase at most once per purchaseId and book, however often and however concurrently the
 * request is retried, and exactly once where the deployment offers transactions.
 *
 * Why it holds without transactions (a standalone mongod and the stand-in):
 * - The key is claimed by inserting `{_id: {book_id, purchase_id}}`. `_id` is unique, so of any
 *   number of racing requests exactly one insert succeeds: that request, the owner, records the
 *   purchase and then stores where it went on the claim. Every other request finds the claim and
 *   returns its outcome, waiting (polling, at most `waitMs`) while there is none yet, and answers a
 *   retryable PURCHASE_IN_PROGRESS when the owner takes longer.
 * - Only the owner writes the outcome, guarded by its token, so a claim has one outcome forever.
 * - If recording fails, the owner deletes its claim (guarded by its token) before reporting the error,
 *   so the key stays usable: a domain failure (unknown book) wrote nothing, and a retry repeats it.
 *   When that delete fails too (the database is away), `claimReleases` retries it until it lands, and
 *   a retry of the key in this process tries it first, so the key is usable again soon after the outage.
 * - If the owner dies between claim and outcome, the claim stays without outcome; once `leaseMs` has
 *   passed since it was claimed, one retry takes it over with an update guarded by the old token and
 *   the missing outcome, and records the purchase itself.
 *
 * Residual risk, by design: whether the purchase of a claim without outcome was written cannot be told
 * (`customers_purchased` holds bare customer ids and a customer may buy a book twice), so a purchase
 * can be doubled when (a) the owner dies after writing the purchase and before storing the outcome (one
 * round trip) and a retry takes the claim over after the lease, (b) a write fails ambiguously (applied,
 * but its acknowledgement lost) and the retry records it again, (c) an owner outlives its lease before
 * its purchase is written, or (d) the owner wrote the purchase but the database refuses its outcome for
 * longer than the lease, and a retry reaches another process, which takes the claim over. The owner's
 * own process never records it again: it answers such a retry from the outcome it still owes.
 *
 * Where MongoDB offers transactions (a replica set or mongos, and `purchaseTransactions` is "auto"),
 * the claim, the purchase and its outcome are one transaction (`purchase-transactions.ts`), shared
 * with the book's other keyed purchases once it is a known outlier (`shared-writes.ts`): a claim is
 * never seen without its outcome, and a failure, an abort or a lost commit leaves either all of it or
 * none, so a retry finds the outcome or records the purchase afresh. None of (a), (b), (c) remains.
 *
 * Keys are kept at least `purchaseIdLifetimeHours` (the TTL monitor deletes expired claims within
 * about a minute); a retry after that is a new purchase. Lease times compare clocks of the API's
 * hosts, assumed to agree to well within the lease.
 */
export async function recordKeyedPurchase(
  db: Db,
  request: KeyedPurchaseRequest,
  settings: KeyedPurchaseSettings,
  service: KeyedPurchaseService,
): Promise<PurchaseOutcome> {
  const { purchaseId, bookId, customerId } = request;
  const { knownOutliers, timing } = service;
  const id = { book_id: bookId, purchase_id: purchaseId };
  const lifetimeHours = settings.purchaseIdLifetimeHours ?? DEFAULT_PURCHASE_ID_LIFETIME_HOURS;
  const transactions = await usesTransactions(settings.purchaseTransactions ?? "auto", () => helloOf(db));
  const sharedWrites = transactions ? service.sharedWrites : undefined;
  // Where transactions are shared, a known outlier's keyed purchases go in its book's shared ones.
  const outlierToShare = () => (sharedWrites ? knownOutliers.get(bookId) : undefined);
  const own = async (taking: Taking): Promise<ClaimState> => {
    const recorded = transactions
      ? await recordInTransaction(
          db,
          { request, id, settings, knownOutliers, transactionMs: timing.transactionMs, mayShare: () => outlierToShare() !== undefined },
          taking,
        )
      : await recordAsOwner(db, request, id, settings, service, taking);
    return recorded ? { kind: "recorded", outcome: { ...recorded, replayed: false } } : stateOf(db, id);
  };
  const claimAfresh = () => {
    const claim = newClaim(id, customerId, lifetimeHours);
    const outlier = outlierToShare();
    return sharedWrites && outlier ? recordInSharedTransaction(db, sharedWrites, { request, id, outlier, claim }) : own({ fresh: claim });
  };

  const giveUpAt = Date.now() + timing.waitMs;
  let state = await claimAfresh();
  for (;;) {
    if (state.kind === "recorded") return state.outcome;
    if (state.kind === "vanished") {
      // Released by an owner whose recording failed (or expired, or rolled back with its transaction): claim it afresh.
      state = await claimAfresh();
      continue;
    }
    const held = state.claim;
    if (held.customer_id !== customerId) throw new PurchaseIdConflictError(purchaseId);
    if (held.stored_in !== undefined) return replay(db, bookId, held.stored_in);
    // An owed write that lands now: the release frees the key, the outcome answers it (as the claim then says).
    if (await service.claimReleases.settleNow(held.owner)) {
      state = await stateOf(db, id);
      continue;
    }
    // A purchase this process wrote and whose outcome the database still refuses: written, past the lease too.
    const written = service.claimReleases.owedOutcome(held.owner);
    if (written !== undefined) return replay(db, bookId, written);
    if (Date.now() - held.claimed_at.getTime() >= timing.leaseMs) {
      state = await own({ stale: held });
      continue;
    }
    if (Date.now() >= giveUpAt) throw new PurchaseInProgressError(purchaseId);
    await sleep(timing.pollIntervalMs);
    state = await stateOf(db, id);
  }
}

async function stateOf(db: Db, id: ClaimId): Promise<ClaimState> {
  const claim = await findClaim(db, id);
  return claim ? { kind: "held", claim } : { kind: "vanished" };
}

/** Without transactions: take the claim, record, store the outcome; release the claim if recording fails. Undefined when another request holds the claim. */
async function recordAsOwner(
  db: Db,
  request: PurchaseRequest,
  id: ClaimId,
  settings: KeyedPurchaseSettings,
  { knownOutliers, sharedWrites, claimReleases, timing }: KeyedPurchaseService,
  taking: Taking,
): Promise<RecordedPurchase | undefined> {
  const ownership = await takeClaim(db, taking);
  if (ownership === undefined) return undefined;
  let purchase: RecordedPurchase;
  try {
    purchase = await recordPurchase(db, request.bookId, request.customerId, settings, { knownOutliers, sharedWrites });
  } catch (error) {
    // The client needs the original error; a release that fails now is retried by claimReleases until the lease ends, else the claim waits it out.
    const release = () => releaseClaim(db, id, ownership.token);
    await release().catch(() => claimReleases.owe(ownership.token, new Date(ownership.claimedAt.getTime() + timing.leaseMs), release));
    throw error;
  }
  // Matches nothing only if this request outlived its lease and was taken over: the residual risk (c).
  const { storedIn } = purchase;
  await keepOutcome(
    () => storeOutcome(db, id, ownership.token, storedIn),
    timing.waitMs,
    (store) => claimReleases.oweOutcome(ownership.token, storedIn, store),
  );
  return purchase;
}

// Short next to the wait of a retry (PurchaseIdTiming.waitMs), so that a retry arriving meanwhile finds the outcome.
const OUTCOME_RETRY_MS = 250;

/**
 * Stores the outcome of a purchase this request has certainly written. A purchase whose outcome is lost
 * would be recorded again by a retry once the lease has passed, so a store that fails because the
 * database is away is retried for up to `waitMs` before the request answers; if the database is still
 * away (or the store failed for another reason, which waiting would not mend), the request fails with
 * that error, and `claimReleases` goes on storing the outcome in the background for as long as the process
 * lives, past the lease: a retry of the key in this process tries it first, and while it still fails answers
 * from it rather than take the claim over. Only a process that dies first leaves the claim without its
 * outcome (the standalone path's residual risk (a)), and only a retry served by another process can take
 * the claim over after the lease while this one still cannot store it (d).
 */
async function keepOutcome(store: () => Promise<void>, waitMs: number, oweLater: (write: () => Promise<void>) => void): Promise<void> {
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    try {
      return await store();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + OUTCOME_RETRY_MS >= giveUpAt) {
        oweLater(store);
        throw error;
      }
      await sleep(OUTCOME_RETRY_MS);
    }
  }
}

/** A fresh claim's purchase of a known outlier, in a transaction it shares with others of the book (see `SharedWrites`). */
async function recordInSharedTransaction(
  db: Db,
  sharedWrites: SharedWrites,
  { request, id, outlier, claim }: { request: PurchaseRequest; id: ClaimId; outlier: KnownOutlier; claim: ClaimDocument },
): Promise<ClaimState> {
  const written = await sharedWrites.keyedExtraSale({ bookId: request.bookId, customerId: request.customerId, outlier, claim });
  // A request whose purchaseId another request of the shared write carried answers from that one's claim, as any retry does.
  if (written.book === undefined || !written.recorded.has(claim.owner)) return stateOf(db, id);
  return { kind: "recorded", outcome: { ...extraSaleAnswer({ book: written.book, purchases: written.purchases }), replayed: false } };
}
