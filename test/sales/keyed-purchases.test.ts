import { createBook } from "../../src/sales/books";
import { PurchaseInProgressError } from "../../src/sales/errors";
import { claimsCollection } from "../../src/sales/documents";
import { PURCHASE_ID_TIMING } from "../../src/sales/keyed-purchases";
import { PurchaseService } from "../../src/sales/purchase-service";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { storedPurchases } from "../support/factories";
import { recordAsNewServer } from "../support/purchases";

// Claims are looked up by one part of their compound _id: along the _id index, as mongod's notablescan requires.
const BY_ID = { hint: { _id: 1 } };

const settings = { outlierThreshold: 3, extraSalesPageSize: 4 };

let database: TestDatabase;
beforeAll(async () => void (database = await openTestDatabase()));
afterAll(() => database.close());

async function bookWithClaimInProgress(bookId: string, purchaseId: string): Promise<void> {
  await createBook(database.db, { id: bookId, title: "Claimed", author: "A" }, settings);
  const now = new Date();
  await claimsCollection(database.db).insertOne({
    _id: { book_id: bookId, purchase_id: purchaseId },
    customer_id: "alice",
    owner: "a request still running",
    claimed_at: now,
    expires_at: new Date(now.getTime() + 3_600_000),
  });
}

describe("a keyed purchase", () => {
  it("answers PURCHASE_IN_PROGRESS when the request owning the purchaseId does not finish within the wait, and records nothing", async () => {
    await bookWithClaimInProgress("in-progress", "line-1");
    const request = { bookId: "in-progress", customerId: "alice", purchaseId: "line-1" };

    const attempt = recordAsNewServer(database.db, request, settings, {
      timing: { ...PURCHASE_ID_TIMING, waitMs: 100, pollIntervalMs: 10 },
    });

    await expect(attempt).rejects.toThrow(PurchaseInProgressError);
    await expect(attempt).rejects.toMatchObject({ code: "PURCHASE_IN_PROGRESS" });
    expect(await storedPurchases(database.db, "in-progress")).toEqual([]);
    expect(await claimsCollection(database.db).findOne({ "_id.book_id": "in-progress" }, BY_ID)).toMatchObject({
      owner: "a request still running",
    });
  });

  it("keeps a purchaseId for the configured lifetime", async () => {
    await createBook(database.db, { id: "two-hours", title: "Kept", author: "A" }, settings);
    await recordAsNewServer(
      database.db,
      { bookId: "two-hours", customerId: "alice", purchaseId: "line-2" },
      { ...settings, purchaseIdLifetimeHours: 2 },
    );

    const claim = await claimsCollection(database.db).findOne({ "_id.book_id": "two-hours" }, BY_ID);
    expect(claim!.expires_at.getTime() - claim!.claimed_at.getTime()).toBe(2 * 3_600_000);
  });
});

/**
 * Without transactions the owner stores its purchase's outcome on its own, after the purchase: a store
 * that fails must neither lose the outcome (a retry would record the purchase again) nor keep the client
 * waiting for nothing. Faults come from the failCommand fail point of the replica set beside the run's
 * database, where test commands are enabled; PURCHASE_TRANSACTIONS=off takes the standalone path there.
 */
describe("a keyed purchase whose outcome cannot be stored at first", () => {
  const withoutTransactions = { ...settings, purchaseTransactions: "off" as const };
  let replicaSet: TestDatabase;
  let purchases: PurchaseService;
  beforeAll(async () => void (replicaSet = await openTestDatabase({ replicaSet: true })));
  beforeEach(
    () => void (purchases = new PurchaseService(replicaSet.db, { releaseTiming: { firstRetryMs: 20, maxRetryMs: 200, maxOwed: 10 } })),
  );
  afterEach(async () => {
    await failOutcomeStores("off");
    await purchases.stop();
  });
  afterAll(() => replicaSet.close());

  /** Makes the next `times` updates of claims fail with `errorCode`; "off" ends it. Resolves to how often the fail point has fired in all, since the server started. */
  async function failOutcomeStores(times: number | "off", errorCode = 0): Promise<number> {
    const mode = times === "off" ? "off" : { times };
    const data = { failCommands: ["update"], namespace: `${replicaSet.db.databaseName}.purchase_requests`, errorCode };
    const { count } = await replicaSet.client.db("admin").command({ configureFailPoint: "failCommand", mode, data });
    return count as number;
  }

  it("retries the store while the database is away, and answers the purchase as stored", async () => {
    await createBook(replicaSet.db, { id: "stepping-down", title: "Kept", author: "A" }, settings);
    // ShutdownInProgress twice: the driver's own retry of the write meets it again, so the outcome's retry must carry it.
    const firedBefore = await failOutcomeStores(2, 91);

    const outcome = await purchases.record({ bookId: "stepping-down", customerId: "alice", purchaseId: "line-1" }, withoutTransactions);

    expect(outcome).toMatchObject({ storedIn: "EMBEDDED", replayed: false });
    expect((await failOutcomeStores("off")) - firedBefore).toBe(2);
    expect(await claimsCollection(replicaSet.db).findOne({ "_id.book_id": "stepping-down" }, BY_ID)).toMatchObject({
      stored_in: "EMBEDDED",
    });
    expect(await storedPurchases(replicaSet.db, "stepping-down")).toEqual(["alice"]);
  });

  it("answers at once with an error that waiting would not mend, stores the outcome afterwards, and a retry replays it", async () => {
    await createBook(replicaSet.db, { id: "refused", title: "Kept", author: "A" }, settings);
    const request = { bookId: "refused", customerId: "bob", purchaseId: "line-2" };
    // BadValue once: a store retried in the request would succeed, and the request would answer as stored.
    await failOutcomeStores(1, 2);

    await expect(purchases.record(request, withoutTransactions)).rejects.toMatchObject({ code: 2 });

    while (purchases.claimReleases.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await claimsCollection(replicaSet.db).findOne({ "_id.book_id": "refused" }, BY_ID)).toMatchObject({ stored_in: "EMBEDDED" });
    expect(await purchases.record(request, withoutTransactions)).toMatchObject({ storedIn: "EMBEDDED", replayed: true });
    expect(await storedPurchases(replicaSet.db, "refused")).toEqual(["bob"]);
  });
});
