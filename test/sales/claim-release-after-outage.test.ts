import { startOfflineServer, type RunningOfflineServer } from "@bookstore/offline-mongo";
import type { CommandStartedEvent } from "mongodb";
import { connectToDatabase, type DatabaseConnection } from "../../src/db/connection";
import { createBook } from "../../src/sales/books";
import type { ReleaseRetryTiming } from "../../src/sales/claim-releases";
import { PurchaseInProgressError } from "../../src/sales/errors";
import { claimsCollection } from "../../src/sales/documents";
import { PurchaseService } from "../../src/sales/purchase-service";
import type { PurchaseRequest } from "../../src/sales/purchases";
import { storedPurchases } from "../support/factories";
import { errorCodes, send, startTestHttpServer } from "../support/http";
import { ensureSalesIndexes } from "../../src/sales/indexes";

/**
 * A claim whose recording failed in an outage, and whose release failed with it, is released by the
 * process once the database is back, rather than answering PURCHASE_IN_PROGRESS for its whole lease.
 *
 * The outage has to fall between the claim and the purchase, so that the purchase is certainly not
 * written (else the retry would rightly record it a second time: the standalone path's residual risk).
 * The in-process stand-in is stopped from the driver's commandStarted event of the purchase's first
 * write, which the driver emits before sending it: stopping closes every connection at once, so the
 * write never reaches the server, and the release that follows cannot either. A mongod in another
 * process cannot be stopped that exactly, so this file starts a stand-in of its own whatever the run's
 * database (as outage.test.ts does); releases are owed only on the standalone path, which it is.
 */
const settings = { outlierThreshold: 3, extraSalesPageSize: 4 };
// A lease far beyond the test, so that only a release, never a takeover, can free the key.
const timing = { leaseMs: 3_600_000, waitMs: 300, pollIntervalMs: 10, transactionMs: 10_000 };
const FAST_RELEASES = { firstRetryMs: 20, maxRetryMs: 200, maxOwed: 100 };
// Retries far apart, so that only the retrying request itself can have released the claim.
const SLOW_RELEASES = { firstRetryMs: 600_000, maxRetryMs: 600_000, maxOwed: 100 };

let server: RunningOfflineServer;
let connection: DatabaseConnection;
beforeAll(async () => {
  server = await startOfflineServer({ notablescan: true });
  // Server selection gives up quickly while the stand-in is stopped, as the service's driverTimeouts make it do.
  connection = await connectToDatabase(
    server.uri,
    "claims",
    { monitorCommands: true, serverSelectionTimeoutMS: 1_000 },
    { ensureIndexes: ensureSalesIndexes },
  );
});
afterAll(async () => {
  await connection.close();
  await server.stop();
});

/** Stops the stand-in as the purchase's first write to `sales` is about to be sent, once. */
function stopDatabaseAtThePurchase(): void {
  const atPurchase = (event: CommandStartedEvent) => {
    if (event.command[event.commandName] !== "sales") return;
    connection.client.off("commandStarted", atPurchase);
    void server.stop();
  };
  connection.client.on("commandStarted", atPurchase);
}

/**
 * Records `request`, failing in an outage after its claim and before its purchase; the database is
 * back when it returns. Returns how many releases were owed during the outage.
 */
async function failInAnOutage(request: PurchaseRequest, purchases: PurchaseService): Promise<number> {
  await createBook(connection.db, { id: String(request.bookId), title: "Cut off", author: "A" }, settings);
  stopDatabaseAtThePurchase();
  await expect(purchases.record(request, settings)).rejects.toThrow();
  const owed = purchases.claimReleases.size;
  await server.restart();
  return owed;
}

function claimOf({ bookId, purchaseId }: PurchaseRequest) {
  return claimsCollection(connection.db).findOne({ _id: { book_id: bookId, purchase_id: purchaseId! } });
}

/** One process's purchase service, whose owed releases are retried as `releaseTiming` says. */
const processWith = (releaseTiming: ReleaseRetryTiming) => new PurchaseService(connection.db, { timing, releaseTiming });

describe("a purchaseId whose claim could not be released in an outage", () => {
  let purchases: PurchaseService;
  afterEach(() => purchases.stop());

  it("is recorded by a retry in the same process as soon as the database is back, once, long before the lease", async () => {
    purchases = processWith(SLOW_RELEASES);
    const request = { bookId: "retried", customerId: "alice", purchaseId: "line-1" };
    expect(await failInAnOutage(request, purchases)).toBe(1);

    const retry = await purchases.record(request, settings);

    expect(retry).toMatchObject({ storedIn: "EMBEDDED", replayed: false });
    expect(await storedPurchases(connection.db, "retried")).toEqual(["alice"]);
    expect(await claimOf(request)).toMatchObject({ customer_id: "alice", stored_in: "EMBEDDED" });
    expect(purchases.claimReleases.size).toBe(0);
  });

  it("is released by the process on its own once the database is back, so a retry from anywhere records it", async () => {
    purchases = processWith(FAST_RELEASES);
    const request = { bookId: "released", customerId: "bob", purchaseId: "line-2" };
    expect(await failInAnOutage(request, purchases)).toBe(1);

    while (purchases.claimReleases.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await claimOf(request)).toBeNull();
    // Another process knows nothing of this one's releases, and finds the key free.
    const another = processWith(FAST_RELEASES);
    const retry = await another.record(request, settings).finally(() => another.stop());
    expect(retry.replayed).toBe(false);
    expect(await storedPurchases(connection.db, "released")).toEqual(["bob"]);
  });

  it("answers PURCHASE_IN_PROGRESS until its lease, as before, when the process that owes the release is gone", async () => {
    const gone = processWith(FAST_RELEASES);
    // A process that is gone retries nothing: stopped, it takes on no release.
    await gone.stop();
    const request = { bookId: "orphaned", customerId: "carol", purchaseId: "line-3" };
    await failInAnOutage(request, gone);

    purchases = processWith(FAST_RELEASES);
    await expect(purchases.record(request, settings)).rejects.toThrow(PurchaseInProgressError);
    expect(await claimOf(request)).toMatchObject({ customer_id: "carol" });
    expect(await storedPurchases(connection.db, "orphaned")).toEqual([]);
  });
});

describe("the API over HTTP, after an outage between a purchase's claim and its write", () => {
  const RECORD = `mutation ($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) { storedIn replayed }
  }`;

  it("answers the failed call DATABASE_UNAVAILABLE and records its retry once, with the service's own 2-minute lease", async () => {
    await createBook(connection.db, { id: "over-http", title: "Over HTTP", author: "A" }, settings);
    const api = await startTestHttpServer(connection.db, { settings });
    try {
      const variables = { bookId: "over-http", customerId: "dave", purchaseId: "line-4" };
      stopDatabaseAtThePurchase();
      const failed = await send(api.url, { query: RECORD, variables });
      await server.restart();
      const retried = await send(api.url, { query: RECORD, variables });

      expect(errorCodes(failed)).toEqual(["DATABASE_UNAVAILABLE"]);
      expect(retried.json).toEqual({ data: { recordPurchase: { storedIn: "EMBEDDED", replayed: false } } });
      expect(await storedPurchases(connection.db, "over-http")).toEqual(["dave"]);
    } finally {
      await api.stop();
    }
  });
});
