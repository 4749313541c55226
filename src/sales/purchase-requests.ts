import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClientSession, Collection, Db, TransactionOptions } from "mongodb";
import { DEFAULT_PURCHASE_ID_LIFETIME_HOURS, type OutlierSettings, type PurchaseIdSettings } from "../config";
import { isDuplicateKeyError, TransactionTimeLimitError } from "../db/errors";
import { helloOf, usesTransactions } from "../db/topology";
import { formatBookId } from "./book-ids";
import { embeddedBuyersProjection } from "./books";
import { PURCHASE_REQUESTS, salesCollection, type BookDocument, type BookId } from "./documents";
import type { ClaimReleases } from "./claim-releases";
import { BookNotFoundError, PurchaseIdConflictError, PurchaseInProgressError } from "./errors";
import type { KnownOutlier, KnownOutliers } from "./known-outliers";
import {
  extraSaleAnswer,
  recordExtraSalesInTransaction,
  recordPurchase,
  type OutlierPurchase,
  type PurchaseOptions,
  type PurchaseStorage,
  type RecordedPurchase,
} from "./purchases";

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
  /** How long a purchase's transaction may keep retrying write conflicts; the API sets its request time limit, after which the client has an answer. */
  transactionMs: number;
}

/**
 * The lease is two minutes because requests are cut off after seconds (the per-request limit and
 * the driver's timeouts), so an owner still writing after two minutes is one that has died.
 */
export const PURCHASE_ID_TIMING: PurchaseIdTiming = { leaseMs: 120_000, waitMs: 3_000, pollIntervalMs: 25, transactionMs: 10_000 };

const HOUR_MS = 3_600_000;

type ClaimId = PurchaseRequestDocument["_id"];

/** Where a request stands with a key: it recorded the purchase, another request holds the claim, or there is none. */
type Claim = { kind: "recorded"; outcome: PurchaseOutcome } | { kind: "held"; claim: PurchaseRequestDocument } | { kind: "vanished" };

/** What a keyed purchase needs beyond `recordPurchase`'s options. */
export interface PurchaseRequestOptions extends PurchaseOptions {
  /** This server's owed releases: without it, a claim whose release failed waits out its lease. */
  claimReleases?: ClaimReleases;
  /** Told of each purchase once it is stored for good (after its transaction's commit), never of a replay: what the metrics count. */
  onRecorded?: (storedIn: PurchaseStorage) => void;
  /** Where transactions are used, lets keyed purchases of a known outlier share one transaction (see `recordKeyedExtraSales`). */
  keyedExtraSalesWriter?: KeyedExtraSalesWriter | undefined;
}

/** A keyed purchase of a known outlier, with the claim it would insert, waiting to share a transaction with others of the book. */
export interface KeyedExtraSale extends OutlierPurchase {
  claim: PurchaseRequestDocument;
}

/** What one shared transaction stored: the book after it (none when it stored nothing), how many purchases, and whose claims (by owner token). */
export interface KeyedExtraSalesWrite {
  book: BookDocument | undefined;
  purchases: number;
  recorded: ReadonlySet<string>;
}

/** Records keyed extra sales, alone or in one transaction with others of the same book. */
export interface KeyedExtraSalesWriter {
  record(sale: KeyedExtraSale): Promise<KeyedExtraSalesWrite>;
}

/**
 * Records a purchase; with a `purchaseId`, at most once per key and book, however often and however
 * concurrently the request is retried, and exactly once where the deployment offers transactions.
 * Without a key it is exactly `recordPurchase` (same round trips).
 *
 * Why it holds without transactions (a standalone mongod and the offline server):
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
 * but its acknowledgement lost) and the retry records it again, or (c) an owner outlives its lease.
 *
 * Where MongoDB offers transactions (a replica set or mongos, and `purchaseTransactions` is "auto"),
 * the claim, the purchase and its outcome are one transaction (`recordInTransaction`): a claim is
 * never seen without its outcome, and a failure, an abort or a lost commit leaves either all of it or
 * none, so a retry finds the outcome or records the purchase afresh. None of (a), (b), (c) remains.
 *
 * Keys are kept at least `purchaseIdLifetimeHours` (the TTL monitor deletes expired claims within
 * about a minute); a retry after that is a new purchase. Lease times compare clocks of the API's
 * hosts, assumed to agree to well within the lease.
 */
export async function recordPurchaseRequest(
  db: Db,
  request: PurchaseRequest,
  settings: Pick<OutlierSettings, "outlierThreshold"> & Partial<PurchaseIdSettings>,
  timing: PurchaseIdTiming = PURCHASE_ID_TIMING,
  options: PurchaseRequestOptions = {},
): Promise<PurchaseOutcome> {
  const outcome = await recordOrReplay(db, request, settings, timing, options);
  if (!outcome.replayed) options.onRecorded?.(outcome.storedIn);
  return outcome;
}

async function recordOrReplay(
  db: Db,
  request: PurchaseRequest,
  settings: Pick<OutlierSettings, "outlierThreshold"> & Partial<PurchaseIdSettings>,
  timing: PurchaseIdTiming,
  options: PurchaseRequestOptions,
): Promise<PurchaseOutcome> {
  const { purchaseId } = request;
  if (purchaseId === undefined)
    return { ...(await recordPurchase(db, request.bookId, request.customerId, settings, options)), replayed: false };

  const id = { book_id: request.bookId, purchase_id: purchaseId };
  const lifetimeHours = settings.purchaseIdLifetimeHours ?? DEFAULT_PURCHASE_ID_LIFETIME_HOURS;
  const transactions = await usesTransactions(settings.purchaseTransactions ?? "auto", () => helloOf(db));
  const owner: Owner = { db, request, id, settings, timing, options };
  const shared = transactions ? options.keyedExtraSalesWriter : undefined;
  // Where transactions are shared, a known outlier's purchases go in its book's shared ones.
  const outlierToShare = () => (shared ? options.knownOutliers?.get(request.bookId) : undefined);
  const mayShare = () => outlierToShare() !== undefined;
  const own = (take: Take) => (transactions ? recordInTransaction(owner, take, mayShare) : recordAsOwner(owner, take));
  const claimAfresh = () => {
    const outlier = outlierToShare();
    return shared && outlier
      ? recordInSharedTransaction(owner, shared, { outlier, claim: newClaim(id, request.customerId, lifetimeHours) })
      : own(insertClaim(db, id, request.customerId, lifetimeHours));
  };

  const giveUpAt = Date.now() + timing.waitMs;
  let claim = await claimAfresh();
  for (;;) {
    if (claim.kind === "recorded") return claim.outcome;
    if (claim.kind === "vanished") {
      // Released by an owner whose recording failed (or expired, or rolled back with its transaction): claim it afresh.
      claim = await claimAfresh();
      continue;
    }
    const held = claim.claim;
    if (held.customer_id !== request.customerId) throw new PurchaseIdConflictError(purchaseId);
    if (held.stored_in !== undefined) return replay(db, request.bookId, held.stored_in, options.embeddedBuyers ?? 0);
    // An owed write that lands now: the release frees the key, the outcome answers it (as findClaim then says).
    if (await options.claimReleases?.settleNow(held.owner)) {
      claim = await findClaim(db, id);
      continue;
    }
    if (Date.now() - held.claimed_at.getTime() >= timing.leaseMs) {
      claim = await own(takeOver(db, held));
      continue;
    }
    if (Date.now() >= giveUpAt) throw new PurchaseInProgressError(purchaseId);
    await sleep(timing.pollIntervalMs);
    claim = await findClaim(db, id);
  }
}

/** What recording as the owner of a claim needs to know. */
interface Owner {
  db: Db;
  request: PurchaseRequest;
  id: ClaimId;
  settings: Pick<OutlierSettings, "outlierThreshold">;
  timing: PurchaseIdTiming;
  options: PurchaseRequestOptions;
}

/** Makes this request the claim's owner (in `session`'s transaction when given); undefined when another request holds it. */
type Take = (session?: ClientSession) => Promise<Ownership | undefined>;

interface Ownership {
  token: string;
  claimedAt: Date;
}

/** A claim on `id` owned by a new token, as its first request inserts it. */
function newClaim(id: ClaimId, customerId: string, lifetimeHours: number): PurchaseRequestDocument {
  const claimedAt = new Date();
  const expiresAt = new Date(claimedAt.getTime() + lifetimeHours * HOUR_MS);
  return { _id: id, customer_id: customerId, owner: randomUUID(), claimed_at: claimedAt, expires_at: expiresAt };
}

function insertClaim(db: Db, id: ClaimId, customerId: string, lifetimeHours: number): Take {
  return async (session) => {
    const claim = newClaim(id, customerId, lifetimeHours);
    try {
      await purchaseRequestsCollection(db).insertOne(claim, { session });
      return { token: claim.owner, claimedAt: claim.claimed_at };
    } catch (error) {
      // In a transaction the duplicate has aborted it: it must end with the error (see recordInTransaction).
      if (session !== undefined || !isDuplicateKeyError(error)) throw error;
      return undefined;
    }
  };
}

function takeOver(db: Db, stale: PurchaseRequestDocument): Take {
  return async (session) => {
    const ownership = { token: randomUUID(), claimedAt: new Date() };
    const { matchedCount } = await purchaseRequestsCollection(db).updateOne(
      { _id: stale._id, owner: stale.owner, stored_in: { $exists: false } },
      { $set: { owner: ownership.token, claimed_at: ownership.claimedAt } },
      { session },
    );
    return matchedCount === 1 ? ownership : undefined;
  };
}

async function findClaim(db: Db, id: ClaimId): Promise<Claim> {
  const claim = await purchaseRequestsCollection(db).findOne({ _id: id });
  return claim ? { kind: "held", claim } : { kind: "vanished" };
}

/** Without transactions: take the claim, record, store the outcome; release the claim if recording fails. */
async function recordAsOwner({ db, request, id, settings, timing, options }: Owner, take: Take): Promise<Claim> {
  const ownership = await take();
  if (ownership === undefined) return findClaim(db, id);
  let purchase: RecordedPurchase;
  try {
    purchase = await recordPurchase(db, request.bookId, request.customerId, settings, options);
  } catch (error) {
    // The client needs the original error; a release that fails now is retried by claimReleases, else the claim waits out its lease.
    const release = () => releaseClaim(db, id, ownership.token);
    const until = new Date(ownership.claimedAt.getTime() + timing.leaseMs);
    await release().catch(() => options.claimReleases?.owe(ownership.token, until, release));
    throw error;
  }
  // Matches nothing only if this request outlived its lease and was taken over: the residual risk (c).
  await keepOutcome(() => storeOutcome(db, id, ownership.token, purchase.storedIn), ownership, timing, options.claimReleases);
  return { kind: "recorded", outcome: { ...purchase, replayed: false } };
}

// Short next to the wait of a retry (PurchaseIdTiming.waitMs), so that a retry arriving meanwhile finds the outcome.
const OUTCOME_RETRY_MS = 250;

/**
 * Stores the outcome of a purchase this request has certainly written. A purchase whose outcome is lost
 * would be recorded again by a retry once the lease has passed, so a failed store is retried for up to
 * `waitMs` before the request answers; if the database is still away, the request fails as its
 * outage makes it fail, and `claimReleases` goes on storing the outcome in the background until the
 * lease ends, a retry of the key in this process trying it first. Only a process that dies first leaves
 * the claim without its outcome: the standalone path's residual risk (a).
 */
async function keepOutcome(
  store: () => Promise<void>,
  ownership: Ownership,
  timing: PurchaseIdTiming,
  claimReleases: ClaimReleases | undefined,
): Promise<void> {
  const giveUpAt = Date.now() + timing.waitMs;
  for (;;) {
    try {
      return await store();
    } catch (error) {
      if (Date.now() + OUTCOME_RETRY_MS >= giveUpAt) {
        claimReleases?.owe(ownership.token, new Date(ownership.claimedAt.getTime() + timing.leaseMs), store);
        throw error;
      }
      await sleep(OUTCOME_RETRY_MS);
    }
  }
}

/**
 * With transactions: the claim, the purchase and its outcome commit together or not at all. The
 * driver's `withTransaction` retries the whole callback on a transient error (a write conflict with a
 * racer) and the commit on an unknown commit result. A duplicate key has aborted the transaction, so
 * nothing of it was written: a racer's committed claim (answered from the claim) or a racer's new
 * page (the claim vanished with the abort, so the caller's loop records afresh).
 * What the purchase teaches about outliers is kept only once committed: an aborted flag was never set.
 */
async function recordInTransaction(
  { db, request, id, settings, timing, options }: Owner,
  take: Take,
  mayShare: () => boolean,
): Promise<Claim> {
  let learned: KnownOutlierNote[] = [];
  let attempts = 0;
  const knownOutliers = {
    get: (bookId: BookId) => options.knownOutliers?.get(bookId),
    remember: (...note: KnownOutlierNote) => void learned.push(note),
  };
  let purchase: RecordedPurchase | undefined;
  try {
    purchase = await inTransaction(db, timing.transactionMs, async (session) => {
      learned = [];
      // Retrying a write conflict after another purchase has made the book a known outlier: join the shared transactions instead.
      if (attempts++ > 0 && mayShare()) throw new MovedToSharedTransaction();
      const ownership = await take(session);
      if (ownership === undefined) return undefined;
      const recorded = await recordPurchase(db, request.bookId, request.customerId, settings, { ...options, knownOutliers, session });
      await storeOutcome(db, id, ownership.token, recorded.storedIn, session);
      return recorded;
    });
  } catch (error) {
    // Nothing of this transaction was written: the caller claims afresh, now through the book's shared transactions.
    if (error instanceof MovedToSharedTransaction) return { kind: "vanished" };
    if (!isDuplicateKeyError(error)) throw error;
  }
  if (purchase === undefined) return findClaim(db, id);
  for (const note of learned) options.knownOutliers?.remember(...note);
  return { kind: "recorded", outcome: { ...purchase, replayed: false } };
}

type KnownOutlierNote = Parameters<KnownOutliers["remember"]>;

/** Ends a lone purchase's transaction that should go on in its book's shared ones (see `recordInTransaction`). */
class MovedToSharedTransaction extends Error {}

/** A fresh claim's purchase of a known outlier, in a transaction it shares with others of the book (see `recordKeyedExtraSales`). */
async function recordInSharedTransaction(
  { db, request, id, options }: Owner,
  writer: KeyedExtraSalesWriter,
  { outlier, claim }: { outlier: KnownOutlier; claim: PurchaseRequestDocument },
): Promise<Claim> {
  const embeddedBuyers = options.embeddedBuyers ?? 0;
  const written = await writer.record({ bookId: request.bookId, customerId: request.customerId, outlier, embeddedBuyers, claim });
  // A request whose purchaseId another request of the batch carried answers from that one's claim, as any retry does.
  if (written.book === undefined || !written.recorded.has(claim.owner)) return findClaim(db, id);
  return { kind: "recorded", outcome: { ...extraSaleAnswer(written.book, written.purchases, embeddedBuyers), replayed: false } };
}

/**
 * Keyed purchases of one outlier in one transaction: their claims, already holding their outcome (the
 * transaction makes claim and purchase one), their appends in arrival order and one count. A duplicate
 * key aborts it all: a claim committed meanwhile by another request with the same purchaseId (that
 * purchase then answers from it, as any retry does), or a page a racer opened; the others are tried
 * again in a fresh transaction. A purchaseId twice in one batch goes in once; its second request finds the claim.
 * Any other failure is every member's, as it would be a lone purchase's, and leaves nothing behind.
 */
export async function recordKeyedExtraSales(
  db: Db,
  sales: readonly KeyedExtraSale[],
  knownOutliers?: Pick<KnownOutliers, "get" | "remember">,
  transactionMs = PURCHASE_ID_TIMING.transactionMs,
): Promise<KeyedExtraSalesWrite> {
  let pending = [...new Map(sales.map((sale) => [sale.claim._id.purchase_id, sale])).values()];
  while (pending.length > 0) {
    const outlier = knownOutliers?.get(pending[0]!.bookId) ?? pending[0]!.outlier;
    const batch = pending.map((sale) => ({ ...sale, outlier }));
    try {
      const written = await inTransaction(db, transactionMs, async (session) => {
        const claims = batch.map(({ claim }) => ({ ...claim, stored_in: "EXTRA_SALES" as const }));
        await purchaseRequestsCollection(db).insertMany(claims, { session });
        return recordExtraSalesInTransaction(db, batch, session);
      });
      knownOutliers?.remember(batch[0]!.bookId, outlier, written.page);
      return { book: written.book, purchases: written.purchases, recorded: new Set(batch.map(({ claim }) => claim.owner)) };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const claimed = await claimedPurchaseIds(db, batch);
      pending = pending.filter(({ claim }) => !claimed.has(claim._id.purchase_id));
    }
  }
  return { book: undefined, purchases: 0, recorded: new Set() };
}

/** The purchaseIds of `sales` that hold a claim now. */
async function claimedPurchaseIds(db: Db, sales: readonly KeyedExtraSale[]): Promise<Set<string>> {
  const claims = await purchaseRequestsCollection(db)
    .find({ _id: { $in: sales.map(({ claim }) => claim._id) } }, { projection: { _id: 1 } })
    .toArray();
  return new Set(claims.map(({ _id }) => _id.purchase_id));
}

/** Reads and writes of one snapshot, acknowledged by a majority: a committed claim and purchase survive a failover. */
const PURCHASE_TRANSACTION: TransactionOptions = { readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } };

/**
 * `work` as one transaction, retried on write conflicts as the driver's `withTransaction` does, but not
 * past `timeLimitMs`: the driver would go on for two minutes, long after the request was answered.
 */
function inTransaction<T>(db: Db, timeLimitMs: number, work: (session: ClientSession) => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + timeLimitMs;
  return db.client.withSession((session) =>
    session.withTransaction(async () => {
      if (Date.now() > giveUpAt) throw new TransactionTimeLimitError(timeLimitMs);
      return work(session);
    }, PURCHASE_TRANSACTION),
  );
}

async function storeOutcome(db: Db, id: ClaimId, owner: string, storedIn: PurchaseStorage, session?: ClientSession): Promise<void> {
  await purchaseRequestsCollection(db).updateOne({ _id: id, owner }, { $set: { stored_in: storedIn } }, { session });
}

/** The owner's delete of its own claim: guarded by its token, so it never removes a claim taken over since. */
async function releaseClaim(db: Db, id: ClaimId, owner: string): Promise<void> {
  await purchaseRequestsCollection(db).deleteOne({ _id: id, owner });
}

/** The book as it stands now (it includes the purchase), with where the purchase went. */
async function replay(db: Db, bookId: BookId, storedIn: PurchaseStorage, embeddedBuyers: number): Promise<PurchaseOutcome> {
  const book = await salesCollection(db).findOne({ _id: bookId }, { projection: embeddedBuyersProjection(embeddedBuyers) });
  // Books are never deleted by this API, so a recorded purchase's book is there.
  if (!book) throw new BookNotFoundError(formatBookId(bookId));
  return { book, storedIn, replayed: true, purchasesInWrite: 0 };
}
