import { randomUUID } from "node:crypto";
import type { ClientSession, Db } from "mongodb";
import { isDuplicateKeyError } from "../db/errors";
import { claimsCollection, type ClaimDocument, type PurchaseStorage } from "./documents";

/**
 * The stored claims on purchaseIds (`purchase_requests`): each function is one command on one claim,
 * guarded so that only the claim's owner changes it. How a keyed purchase uses them is in `keyed-purchases.ts`.
 */

export type ClaimId = ClaimDocument["_id"];

/** The token of the request that owns a claim, and since when. */
export interface Ownership {
  token: string;
  claimedAt: Date;
}

/** How a request becomes a claim's owner: by inserting a new claim, or by taking over one whose lease has passed. */
export type Taking = { fresh: ClaimDocument } | { stale: ClaimDocument };

const HOUR_MS = 3_600_000;

/** A claim on `id` owned by a new token, as its first request inserts it, kept `lifetimeHours`. */
export function newClaim(id: ClaimId, customerId: string, lifetimeHours: number): ClaimDocument {
  const claimedAt = new Date();
  const expiresAt = new Date(claimedAt.getTime() + lifetimeHours * HOUR_MS);
  return { _id: id, customer_id: customerId, owner: randomUUID(), claimed_at: claimedAt, expires_at: expiresAt };
}

/**
 * Makes this request the claim's owner (in `session`'s transaction when given); undefined when another
 * request holds it. In a transaction a duplicate key has aborted the transaction, so it is thrown for
 * the transaction to end with.
 */
export async function takeClaim(db: Db, taking: Taking, session?: ClientSession): Promise<Ownership | undefined> {
  if ("stale" in taking) return takeOver(db, taking.stale, session);
  try {
    await claimsCollection(db).insertOne({ ...taking.fresh }, { session });
    return { token: taking.fresh.owner, claimedAt: taking.fresh.claimed_at };
  } catch (error) {
    if (session !== undefined || !isDuplicateKeyError(error)) throw error;
    return undefined;
  }
}

async function takeOver(db: Db, stale: ClaimDocument, session: ClientSession | undefined): Promise<Ownership | undefined> {
  const ownership = { token: randomUUID(), claimedAt: new Date() };
  const { matchedCount } = await claimsCollection(db).updateOne(
    { _id: stale._id, owner: stale.owner, stored_in: { $exists: false } },
    { $set: { owner: ownership.token, claimed_at: ownership.claimedAt } },
    { session },
  );
  return matchedCount === 1 ? ownership : undefined;
}

export function findClaim(db: Db, id: ClaimId): Promise<ClaimDocument | null> {
  return claimsCollection(db).findOne({ _id: id });
}

/** The owner's record of where its purchase went: guarded by its token, so a claim has one outcome forever. */
export async function storeOutcome(db: Db, id: ClaimId, owner: string, storedIn: PurchaseStorage, session?: ClientSession): Promise<void> {
  await claimsCollection(db).updateOne({ _id: id, owner }, { $set: { stored_in: storedIn } }, { session });
}

/** The owner's delete of its own claim: guarded by its token, so it never removes a claim taken over since. */
export async function releaseClaim(db: Db, id: ClaimId, owner: string): Promise<void> {
  await claimsCollection(db).deleteOne({ _id: id, owner });
}

/** The purchaseIds among `ids` that hold a claim now. */
export async function claimedPurchaseIds(db: Db, ids: readonly ClaimId[]): Promise<Set<string>> {
  const claims = await claimsCollection(db)
    .find({ _id: { $in: [...ids] } }, { projection: { _id: 1 } })
    .toArray();
  return new Set(claims.map(({ _id }) => _id.purchase_id));
}
