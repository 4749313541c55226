import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Collection, Db } from "mongodb";
import { DEFAULT_PURCHASE_ID_LIFETIME_HOURS, type OutlierSettings, type PurchaseIdSettings } from "../config";
import { isDuplicateKeyError } from "../db/errors";
import { formatBookId } from "./book-ids";
import { embeddedBuyersProjection } from "./books";
import { salesCollection, type BookId } from "./documents";
import { BookNotFoundError, PurchaseIdConflictError, PurchaseInProgressError } from "./errors";
import { recordPurchase, type PurchaseOptions, type PurchaseStorage, type RecordedPurchase } from "./purchases";

/** One purchase a client asks for; `purchaseId`, when given, makes retries of it record nothing new. */
export interface PurchaseRequest {
  bookId: BookId;
  customerId: string;
  /** The client's order line id, unique per book: the idempotency key. */
  purchaseId?: string;
}

export interface PurchaseOutcome extends RecordedPurchase {
  /** True when an earlier request with the same purchaseId recorded the purchase and this one only reports it. */
  replayed: boolean;
}

/** A claim on one purchaseId of one book, in `purchase_requests`: who owns it and, once recorded, the outcome. */
export interface PurchaseRequestDocument {
  /** Keys are scoped by book: the same purchaseId for another book is another purchase. */
  _id: { book_id: BookId; purchase_id: string };
  /** The customer the purchaseId was first used for; a retry naming another customer is a conflict. */
  customer_id: string;
  /** A random token of the request that owns the claim; a takeover replaces it. */
  owner: string;
  /** When the owner claimed it; a claim without outcome this long past its lease may be taken over. */
  claimed_at: Date;
  /** When the key may be forgotten: the TTL index (expireAfterSeconds 0) deletes the claim after this date. */
  expires_at: Date;
  /** Where the purchase was stored, set once it is: what every retry answers. */
  stored_in?: PurchaseStorage;
}

export const PURCHASE_REQUESTS = "purchase_requests";

export function purchaseRequestsCollection(db: Db): Collection<PurchaseRequestDocument> {
  return db.collection<PurchaseRequestDocument>(PURCHASE_REQUESTS);
}

export interface PurchaseIdTiming {
  /** How long an owner may take before its claim can be taken over; far beyond any request's life. */
  leaseMs: number;
  /** How long a retry waits for the owner's outcome before answering PURCHASE_IN_PROGRESS. */
  waitMs: number;
  /** How often a waiting retry looks at the claim. */
  pollIntervalMs: number;
}

/**
 * The lease is two minutes because requests are cut off after seconds (the per-request limit and
 * the driver's timeouts), so an owner still writing after two minutes is one that has died.
 */
export const PURCHASE_ID_TIMING: PurchaseIdTiming = { leaseMs: 120_000, waitMs: 3_000, pollIntervalMs: 25 };

const HOUR_MS = 3_600_000;

type ClaimId = PurchaseRequestDocument["_id"];

type Claim = { kind: "owned"; owner: string } | { kind: "held"; claim: PurchaseRequestDocument } | { kind: "vanished" };

/**
 * Records a purchase; with a `purchaseId`, at most once per key and book, however often and however
 * concurrently the request is retried. Without one it is exactly `recordPurchase` (same round trips).
 *
 * Why it holds without transactions (it must run on a standalone mongod and the offline server):
 * - The key is claimed by inserting `{_id: {book_id, purchase_id}}`. `_id` is unique, so of any
 *   number of racing requests exactly one insert succeeds: that request, the owner, records the
 *   purchase and then stores where it went on the claim. Every other request finds the claim and
 *   returns its outcome, waiting (polling, at most `waitMs`) while there is none yet, and answers a
 *   retryable PURCHASE_IN_PROGRESS when the owner takes longer.
 * - Only the owner writes the outcome, guarded by its token, so a claim has one outcome forever.
 * - If recording fails, the owner deletes its claim (guarded by its token) before reporting the error,
 *   so the key stays usable: a domain failure (unknown book) wrote nothing, and a retry repeats it.
 * - If the owner dies between claim and outcome, the claim stays without outcome; once `leaseMs` has
 *   passed since it was claimed, one retry takes it over with an update guarded by the old token and
 *   the missing outcome, and records the purchase itself.
 *
 * Residual risk, by design: whether the purchase of a claim without outcome was written cannot be told
 * (`customers_purchased` holds bare customer ids and a customer may buy a book twice), so a purchase
 * can be doubled when (a) the owner dies after writing the purchase and before storing the outcome (one
 * round trip) and a retry takes the claim over after the lease, (b) a write fails ambiguously (applied,
 * but its acknowledgement lost) and the retry records it again, or (c) an owner outlives its lease.
 * Keys are kept at least `purchaseIdLifetimeHours` (the TTL monitor deletes expired claims within
 * about a minute); a retry after that is a new purchase. Lease times compare clocks of the API's
 * hosts, assumed to agree to well within the lease.
 */
export async function recordPurchaseRequest(
  db: Db,
  request: PurchaseRequest,
  settings: Pick<OutlierSettings, "outlierThreshold"> & Partial<PurchaseIdSettings>,
  timing: PurchaseIdTiming = PURCHASE_ID_TIMING,
  options: PurchaseOptions = {},
): Promise<PurchaseOutcome> {
  const { purchaseId } = request;
  if (purchaseId === undefined)
    return { ...(await recordPurchase(db, request.bookId, request.customerId, settings, options)), replayed: false };

  const id = { book_id: request.bookId, purchase_id: purchaseId };
  const lifetimeHours = settings.purchaseIdLifetimeHours ?? DEFAULT_PURCHASE_ID_LIFETIME_HOURS;
  const giveUpAt = Date.now() + timing.waitMs;
  let claim = await claimOrFind(db, id, request.customerId, lifetimeHours);
  for (;;) {
    if (claim.kind === "owned") return recordAsOwner(db, request, id, claim.owner, settings, options);
    if (claim.kind === "vanished") {
      // Released by an owner whose recording failed (or expired): this request claims it afresh.
      claim = await claimOrFind(db, id, request.customerId, lifetimeHours);
      continue;
    }
    const held = claim.claim;
    if (held.customer_id !== request.customerId) throw new PurchaseIdConflictError(purchaseId);
    if (held.stored_in !== undefined) return replay(db, request.bookId, held.stored_in, options.embeddedBuyers ?? 0);
    if (Date.now() - held.claimed_at.getTime() >= timing.leaseMs) {
      const owner = await takeOver(db, held);
      claim = owner === undefined ? await findClaim(db, id) : { kind: "owned", owner };
      continue;
    }
    if (Date.now() >= giveUpAt) throw new PurchaseInProgressError(purchaseId);
    await sleep(timing.pollIntervalMs);
    claim = await findClaim(db, id);
  }
}

async function claimOrFind(db: Db, id: ClaimId, customerId: string, lifetimeHours: number): Promise<Claim> {
  const owner = randomUUID();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + lifetimeHours * HOUR_MS);
  try {
    await purchaseRequestsCollection(db).insertOne({ _id: id, customer_id: customerId, owner, claimed_at: now, expires_at: expiresAt });
    return { kind: "owned", owner };
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  return findClaim(db, id);
}

async function findClaim(db: Db, id: ClaimId): Promise<Claim> {
  const claim = await purchaseRequestsCollection(db).findOne({ _id: id });
  return claim ? { kind: "held", claim } : { kind: "vanished" };
}

async function recordAsOwner(
  db: Db,
  request: PurchaseRequest,
  id: ClaimId,
  owner: string,
  settings: Pick<OutlierSettings, "outlierThreshold">,
  options: PurchaseOptions,
): Promise<PurchaseOutcome> {
  const claims = purchaseRequestsCollection(db);
  let purchase: RecordedPurchase;
  try {
    purchase = await recordPurchase(db, request.bookId, request.customerId, settings, options);
  } catch (error) {
    // The client needs the original error; a claim that cannot be released now is taken over after its lease.
    await claims.deleteOne({ _id: id, owner }).catch(() => undefined);
    throw error;
  }
  // Matches nothing only if this request outlived its lease and was taken over: the residual risk (c).
  await claims.updateOne({ _id: id, owner }, { $set: { stored_in: purchase.storedIn } });
  return { ...purchase, replayed: false };
}

async function takeOver(db: Db, stale: PurchaseRequestDocument): Promise<string | undefined> {
  const owner = randomUUID();
  const { matchedCount } = await purchaseRequestsCollection(db).updateOne(
    { _id: stale._id, owner: stale.owner, stored_in: { $exists: false } },
    { $set: { owner, claimed_at: new Date() } },
  );
  return matchedCount === 1 ? owner : undefined;
}

/** The book as it stands now (it includes the purchase), with where the purchase went. */
async function replay(db: Db, bookId: BookId, storedIn: PurchaseStorage, embeddedBuyers: number): Promise<PurchaseOutcome> {
  const book = await salesCollection(db).findOne({ _id: bookId }, { projection: embeddedBuyersProjection(embeddedBuyers) });
  // Books are never deleted by this API, so a recorded purchase's book is there.
  if (!book) throw new BookNotFoundError(formatBookId(bookId));
  return { book, storedIn, replayed: true };
}
