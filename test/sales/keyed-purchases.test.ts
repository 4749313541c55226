import { createBook } from "../../src/sales/books";
import { PurchaseInProgressError } from "../../src/sales/errors";
import { claimsCollection } from "../../src/sales/claims";
import { PURCHASE_ID_TIMING } from "../../src/sales/keyed-purchases";
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
