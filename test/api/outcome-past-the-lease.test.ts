import { setTimeout as sleep } from "node:timers/promises";
import type { Document } from "mongodb";
import { connectToDatabase, type DatabaseConnection } from "../../src/db/connection";
import type { RunningServer } from "../../src/graphql/transport/server";
import { createBook } from "../../src/sales/books";
import { claimsCollection } from "../../src/sales/documents";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { storedPurchases } from "../support/factories";
import { errorCodes, postOperation, startTestHttpServer } from "../support/http";

/**
 * Without transactions (a standalone; here the replica set beside the run's database with
 * PURCHASE_TRANSACTIONS=off, whose fail points the run enables), a keyed purchase's owner writes the purchase,
 * then its outcome on the claim. When the database refuses that outcome for longer than the claim's lease
 * (issue 35: a closed connection on every `update` of purchase_requests, held 125 s past the 2-minute lease),
 * a retry used to take the claim over and record the purchase a second time. The lease of the servers in
 * this file is 1.5 s, under the 3 s an owner retries its outcome itself, so that every retry comes after it.
 */
const LEASE_MS = 1_500;
const settings = { outlierThreshold: 3, extraSalesPageSize: 4, purchaseTransactions: "off" as const };
const RECORD = `mutation ($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
  recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) { storedIn replayed }
}`;
const answered = (replayed: boolean) => ({ data: { recordPurchase: { storedIn: "EMBEDDED", replayed } } });

let database: TestDatabase;
let connection: DatabaseConnection;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  connection = await connectToDatabase(process.env.TEST_REPLICA_SET_URI!, database.db.databaseName);
  server = await startTestHttpServer(connection.db, { settings, purchaseIdLeaseMs: LEASE_MS });
});
afterEach(() => failOutcomes("off"));
afterAll(async () => {
  await server.stop();
  await connection.close();
  await database.close();
});

/** Closes the connection on every update of claims (of the process that names itself `appName`, when given), until "off". */
function failOutcomes(mode: "alwaysOn" | "off", appName?: string): Promise<Document> {
  const namespace = `${database.db.databaseName}.purchase_requests`;
  const data = { failCommands: ["update"], namespace, closeConnection: true, ...(appName ? { appName } : {}) };
  return database.client.db("admin").command({ configureFailPoint: "failCommand", mode, data });
}

/** A purchase through `url` whose outcome the database refuses past the lease: answered DATABASE_UNAVAILABLE, the purchase written. */
async function purchaseWhoseOutcomeIsRefused(url: string, variables: Record<string, string>, appName?: string): Promise<void> {
  await createBook(database.db, { id: variables.bookId!, title: "Refused outcome", author: "A" }, settings);
  await failOutcomes("alwaysOn", appName);
  expect(errorCodes(await postOperation(url, RECORD, variables))).toEqual(["DATABASE_UNAVAILABLE"]);
  expect(await storedPurchases(database.db, variables.bookId!)).toEqual([variables.customerId]);
  await sleep(LEASE_MS);
}

const claimOf = (bookId: string) => claimsCollection(database.db).findOne({ "_id.book_id": bookId }, { hint: { _id: 1 } });

it("is never recorded twice by the process that wrote it: a retry past the lease replays it, while the outcome is refused and after", async () => {
  const variables = { bookId: "outcome-refused", customerId: "alice", purchaseId: "line-1" };
  await purchaseWhoseOutcomeIsRefused(server.url, variables);

  // Still refused: the process answers from the outcome it holds, rather than take the claim over.
  expect((await postOperation(server.url, RECORD, variables)).json).toEqual(answered(true));
  await failOutcomes("off");
  expect((await postOperation(server.url, RECORD, variables)).json).toEqual(answered(true));

  expect(await storedPurchases(database.db, variables.bookId)).toEqual(["alice"]);
  expect(await claimOf(variables.bookId)).toMatchObject({ stored_in: "EMBEDDED" });
});

describe("across processes (SECURITY.md: what stays at least once on a standalone)", () => {
  let owner: ApiProcess | undefined;
  afterEach(async () => {
    await owner?.stop();
    owner = undefined;
  });

  it("another process's retry past the lease, while the owner still cannot store the outcome, records it again", async () => {
    // The owner is another API process, as in production; the fail point names its application, so that it refuses
    // the owner's writes alone and this process's retry reaches the database.
    const uri = new URL(process.env.TEST_REPLICA_SET_URI!);
    uri.searchParams.set("appName", "lease-owner");
    owner = await startApiProcess("src/cli/start.ts", {
      MONGODB_URI: uri.toString(),
      MONGODB_DB: database.db.databaseName,
      PURCHASE_TRANSACTIONS: "off",
    });
    const variables = { bookId: "outcome-refused-elsewhere", customerId: "bob", purchaseId: "line-2" };
    await purchaseWhoseOutcomeIsRefused(owner.url, variables, "lease-owner");

    // This process cannot know the purchase was written: the claim has no outcome, and its lease has passed.
    expect((await postOperation(server.url, RECORD, variables)).json).toEqual(answered(false));
    expect(await storedPurchases(database.db, variables.bookId)).toEqual(["bob", "bob"]);
    // The owner's outcome is guarded by its token, which the claim no longer holds: its retry replays the new outcome.
    await failOutcomes("off");
    expect((await postOperation(owner.url, RECORD, variables)).json).toEqual(answered(true));
  });
});
