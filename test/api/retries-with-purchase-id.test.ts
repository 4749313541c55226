import { parseBookId } from "../../src/sales/book-ids";
import { claimsCollection, type ClaimDocument } from "../../src/sales/documents";
import { graphql } from "../__generated__";
import type { RecordKeyedPurchaseMutation } from "../__generated__/graphql";
import { useTestApi, type ExecutionResult } from "../support/api";
import { addBook, customers, invariantViolations, recordPurchases, storedPurchases } from "../support/factories";

// Claims are looked up by one part of their compound _id: along the _id index, as mongod's notablescan requires.
const BY_ID = { hint: { _id: 1 } };

const RECORD_KEYED_PURCHASE = graphql(`
  mutation RecordKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {
      storedIn
      replayed
      book {
        id: databaseId
        purchaseCount
        hasExtras
      }
    }
  }
`);

const settings = { outlierThreshold: 3, extraSalesPageSize: 4 };
const api = useTestApi({ settings });

function buy(bookId: string, customerId: string, purchaseId?: string): Promise<ExecutionResult<RecordKeyedPurchaseMutation>> {
  return api.execute(RECORD_KEYED_PURCHASE, { bookId, customerId, purchaseId });
}

function succeeded(result: ExecutionResult<RecordKeyedPurchaseMutation>): RecordKeyedPurchaseMutation["recordPurchase"] {
  if (result.errors) throw new Error(`recordPurchase failed: ${JSON.stringify(result.errors)}`);
  return result.data!.recordPurchase;
}

/** A claim's _id, as the API writes it. */
function claimId(bookId: string, purchaseId: string): ClaimDocument["_id"] {
  return { book_id: parseBookId(bookId), purchase_id: purchaseId };
}

/** A claim as a request left it, written straight into purchase_requests. */
async function leaveClaim(bookId: string, purchaseId: string, customerId: string, claimedAgoMs: number): Promise<void> {
  const claimedAt = new Date(Date.now() - claimedAgoMs);
  const claim: ClaimDocument = {
    _id: claimId(bookId, purchaseId),
    customer_id: customerId,
    owner: "a request that never finished",
    claimed_at: claimedAt,
    expires_at: new Date(claimedAt.getTime() + 24 * 3_600_000),
  };
  await claimsCollection(api.db).insertOne(claim);
}

describe("recordPurchase with a purchaseId", () => {
  it("records a retried purchase once and answers the retry with the first outcome", async () => {
    const id = await addBook(api);
    const first = succeeded(await buy(id, "alice", "order-1/line-1"));
    const retry = succeeded(await buy(id, "alice", "order-1/line-1"));

    expect(first).toEqual({ storedIn: "EMBEDDED", replayed: false, book: { id, purchaseCount: 1, hasExtras: false } });
    expect(retry).toEqual({ ...first, replayed: true });
    expect(await storedPurchases(api.db, id)).toEqual(["alice"]);
  });

  it.each([
    ["an embedded purchase", 0, "EMBEDDED"],
    ["an extra sale", 9, "EXTRA_SALES"],
  ])("records %s once when 40 identical requests race, and answers them all alike", async (_case, before, storedIn) => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(before));

    const results = (await Promise.all(Array.from({ length: 40 }, () => buy(id, "racer", "line-42")))).map(succeeded);

    expect(new Set(results.map((result) => result.storedIn))).toEqual(new Set([storedIn]));
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(await storedPurchases(api.db, id)).toEqual([...customers(before), "racer"]);
    expect(await invariantViolations(api.db, id, settings)).toEqual([]);
  });

  it("records the same purchaseId for another book as another purchase", async () => {
    const [one, other] = [await addBook(api), await addBook(api)];
    succeeded(await buy(one, "alice", "line-7"));
    expect(succeeded(await buy(other, "alice", "line-7")).replayed).toBe(false);
    expect(await storedPurchases(api.db, other)).toEqual(["alice"]);
  });

  it("refuses the book's purchaseId with another customer with PURCHASE_ID_CONFLICT, without naming that customer or recording anything", async () => {
    const id = await addBook(api);
    succeeded(await buy(id, "alice", "line-8"));
    const result = await buy(id, "bob", "line-8");

    expect(result.errors?.[0]?.extensions?.code).toBe("PURCHASE_ID_CONFLICT");
    expect(result.errors?.[0]?.message).not.toContain("alice");
    expect(await storedPurchases(api.db, id)).toEqual(["alice"]);
  });

  it("records every call without a purchaseId, as before", async () => {
    const id = await addBook(api);
    const results = [succeeded(await buy(id, "alice")), succeeded(await buy(id, "alice"))];
    expect(results.map((result) => result.replayed)).toEqual([false, false]);
    expect(await storedPurchases(api.db, id)).toEqual(["alice", "alice"]);
  });

  it("records a keyed embedded purchase in three round trips: claim, push, outcome", async () => {
    const id = await addBook(api);
    api.commands.reset();
    succeeded(await buy(id, "alice", "line-9"));
    // On a replica set or mongos the three are one transaction, which adds its commit (purchase-transactions.test.ts).
    expect(api.commands.names().filter((name) => name !== "commitTransaction")).toEqual(["insert", "findAndModify", "update"]);
  });

  it("waits for an earlier request that is still recording the purchase and answers its outcome", async () => {
    const id = await addBook(api);
    await leaveClaim(id, "line-10", "alice", 0);
    const finishEarlierRequest = setTimeout(() => {
      // By the whole _id, book included: on a sharded cluster a single write must name the claim's shard key.
      void claimsCollection(api.db).updateOne({ _id: claimId(id, "line-10") }, { $set: { stored_in: "EMBEDDED" } });
    }, 100);

    const result = succeeded(await buy(id, "alice", "line-10"));
    clearTimeout(finishEarlierRequest);

    expect(result).toMatchObject({ storedIn: "EMBEDDED", replayed: true });
    expect(await storedPurchases(api.db, id)).toEqual([]);
  });

  it("takes over a claim left without outcome past its lease and records the purchase once", async () => {
    const id = await addBook(api);
    await leaveClaim(id, "line-11", "alice", 10 * 60_000);

    const results = (await Promise.all([buy(id, "alice", "line-11"), buy(id, "alice", "line-11")])).map(succeeded);

    expect(results.map((result) => result.replayed).sort()).toEqual([false, true]);
    expect(await storedPurchases(api.db, id)).toEqual(["alice"]);
    const claim = await claimsCollection(api.db).findOne({ "_id.purchase_id": "line-11" }, BY_ID);
    expect(claim).toMatchObject({ stored_in: "EMBEDDED", owner: expect.not.stringMatching("never finished") });
  });

  it("releases the purchaseId when the purchase fails, so a retry once the book exists records it", async () => {
    const failed = await buy("not-yet-added", "alice", "line-12");
    expect(failed.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(await claimsCollection(api.db).countDocuments({ "_id.purchase_id": "line-12" }, BY_ID)).toBe(0);

    await addBook(api, { id: "not-yet-added" });
    expect(succeeded(await buy("not-yet-added", "alice", "line-12")).replayed).toBe(false);
    expect(await storedPurchases(api.db, "not-yet-added")).toEqual(["alice"]);
  });

  it("records the purchaseId again once its claim has expired and been deleted", async () => {
    const id = await addBook(api);
    succeeded(await buy(id, "alice", "line-13"));
    // What the TTL monitor does once expires_at has passed (its sweep is tested in packages/offline-mongo/test/ttl.test.ts).
    await claimsCollection(api.db).deleteOne({ _id: claimId(id, "line-13") });

    expect(succeeded(await buy(id, "alice", "line-13")).replayed).toBe(false);
    expect(await storedPurchases(api.db, id)).toEqual(["alice", "alice"]);
  });

  it("keeps each claim until 24 hours after it was made, under a TTL index on expires_at", async () => {
    const id = await addBook(api);
    const before = Date.now();
    succeeded(await buy(id, "alice", "line-14"));

    const claim = await claimsCollection(api.db).findOne({ "_id.purchase_id": "line-14" }, BY_ID);
    const lifetime = claim!.expires_at.getTime() - claim!.claimed_at.getTime();
    expect(lifetime).toBe(24 * 3_600_000);
    expect(claim!.claimed_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await claimsCollection(api.db).listIndexes().toArray()).toContainEqual(
      expect.objectContaining({ key: { expires_at: 1 }, expireAfterSeconds: 0 }),
    );
  });

  it.each([
    ["an empty purchaseId", ""],
    ["an over-long purchaseId", "p".repeat(129)],
  ])("refuses %s with BAD_USER_INPUT and writes nothing", async (_case, purchaseId) => {
    const id = await addBook(api);
    const result = await buy(id, "alice", purchaseId);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argumentName: "input.purchaseId" });
    expect(await storedPurchases(api.db, id)).toEqual([]);
    expect(await claimsCollection(api.db).countDocuments({ "_id.purchase_id": purchaseId }, BY_ID)).toBe(0);
  });
});
