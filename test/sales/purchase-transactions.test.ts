import { setTimeout as sleep } from "node:timers/promises";
import { MongoServerError, type CommandStartedEvent, type Db, type Document } from "mongodb";
import { TransactionTimeLimitError } from "../../src/db/errors";
import { connectToDatabase, type DatabaseConnection } from "../../src/db/connection";
import { ensureSalesIndexes, UNIQUE_PAGE_INDEX } from "../../src/sales/indexes";
import { createBook } from "../../src/sales/books";
import { claimsCollection, extraSalesCollection, salesCollection } from "../../src/sales/documents";
import { PURCHASE_ID_TIMING } from "../../src/sales/keyed-purchases";
import { PurchaseService } from "../../src/sales/purchase-service";
import { recordPurchase, type PurchaseRequest } from "../../src/sales/purchases";
import { openTestDatabase, RUN_AND_REPLICA_SET, type TestDatabase } from "../support/database";
import { errorCodes, postOperation, startTestHttpServer } from "../support/http";
import { customers, invariantViolations, storedBook, storedPurchases } from "../support/factories";
import { recordAsNewServer } from "../support/purchases";
import { untilAnswered } from "../support/until-answered";

/**
 * Which path a keyed purchase takes on each deployment, and what each promises. Every test runs twice:
 * on the run's database and on the replica set beside it (see test/support/database-process.ts). Each
 * deployment is asked directly whether it accepts a transaction: a standalone mongod (and the offline
 * stand-in by default) refuses with code 20, so `PURCHASE_TRANSACTIONS=auto` must not try; a replica set
 * or mongos accepts, and there every keyed purchase is one transaction. Each test asserts what its
 * deployment promises.
 */
const settings = { outlierThreshold: 3, extraSalesPageSize: 4 };
const RECORD_PURCHASE = `mutation ($input: RecordPurchaseInput!) { recordPurchase(input: $input) { storedIn } }`;

describe.each(RUN_AND_REPLICA_SET)("keyed purchases on $deployment", ({ replicaSet }) => {
  let database: TestDatabase;
  // A second client, as a second API process would have, with its own connections and its own known outliers.
  let other: DatabaseConnection;
  let transactional: boolean;
  beforeAll(async () => {
    database = await openTestDatabase({ replicaSet });
    const uri = replicaSet ? process.env.TEST_REPLICA_SET_URI! : process.env.TEST_MONGODB_URI!;
    other = await connectToDatabase(uri, database.db.databaseName, {}, { ensureIndexes: ensureSalesIndexes });
    transactional = (await attemptATransaction(database.db)) === "committed";
  });
  afterAll(async () => {
    await other.close();
    await database.close();
  });

  if (replicaSet) {
    /** Runs `work` while another client's open transaction has written the book: every purchase of it meets a write conflict. */
    async function whileHeld(bookId: string, work: () => Promise<void>): Promise<void> {
      const holder = other.client.startSession();
      holder.startTransaction();
      await salesCollection(other.db).updateOne({ _id: bookId }, { $set: { title: "Held" } }, { session: holder });
      try {
        await work();
      } finally {
        await holder.abortTransaction();
        await holder.endSession();
      }
    }

    it("run in transactions there: the replica set accepts them", () => expect(transactional).toBe(true));

    it("stop retrying write conflicts after the transaction's time limit, as DATABASE_UNAVAILABLE, leaving nothing behind", async () => {
      await createBook(database.db, { id: "contended", title: "Contended", author: "A" }, settings);
      const timing = { ...PURCHASE_ID_TIMING, transactionMs: 300 };
      await whileHeld("contended", () =>
        expect(recordAsNewServer(database.db, keyed("contended", "alice"), settings, { timing })).rejects.toBeInstanceOf(
          TransactionTimeLimitError,
        ),
      );
      expect(await claimsCollection(database.db).findOne({ _id: { book_id: "contended", purchase_id: "line-alice" } })).toBeNull();
      expect(await storedPurchases(database.db, "contended")).toEqual([]);

      const retried = await recordAsNewServer(database.db, keyed("contended", "alice"), settings);
      expect(retried.replayed).toBe(false);
      expect(await storedPurchases(database.db, "contended")).toEqual(["alice"]);
    });

    it("stop retrying when the API has answered the request REQUEST_TIMEOUT, so nothing is written after the answer", async () => {
      await createBook(database.db, { id: "late", title: "Late", author: "A" }, settings);
      const server = await startTestHttpServer(database.db, { settings, requestTimeoutMs: 300 });
      const input = { bookId: "late", customerId: "alice", purchaseId: "late-alice" };
      try {
        await whileHeld("late", async () => {
          const answer = await postOperation(server.url, RECORD_PURCHASE, { input });
          expect(errorCodes(answer)).toEqual(["REQUEST_TIMEOUT"]);
          // Far past the request's limit: a transaction still retrying would commit as soon as the book is free.
          await sleep(2_000);
        });
        await sleep(500);
        expect(await storedPurchases(database.db, "late")).toEqual([]);

        const retried = await postOperation(server.url, RECORD_PURCHASE, { input });
        expect(retried.json?.data).toEqual({ recordPurchase: { storedIn: "EMBEDDED" } });
        expect(await storedPurchases(database.db, "late")).toEqual(["alice"]);
      } finally {
        await server.stop();
      }
    });
  }

  /**
   * What the run's database answers to a transaction: "committed", or the code it refused it with. A read,
   * because the driver rewrites a write's code 20 into its own advice about retryable writes.
   */
  async function attemptATransaction(db: Db): Promise<"committed" | number | undefined> {
    try {
      await db.client.withSession((session) =>
        session.withTransaction(async () => void (await db.collection("transaction_probe").findOne({}, { session }))),
      );
      return "committed";
    } catch (error) {
      if (error instanceof MongoServerError) return error.code as number;
      throw error;
    }
  }

  /**
   * The commands a keyed purchase sends, and whether each is part of a transaction: `autocommit: false`,
   * which only transactions send (a retryable write on a replica set carries a txnNumber too).
   */
  async function commandsOf(purchase: () => Promise<unknown>): Promise<{ name: string; inTransaction: boolean }[]> {
    const sent: CommandStartedEvent[] = [];
    const listen = (event: CommandStartedEvent) => void sent.push(event);
    database.client.on("commandStarted", listen);
    try {
      await purchase();
    } finally {
      database.client.off("commandStarted", listen);
    }
    return sent
      .filter((event) => !["hello", "endSessions"].includes(event.commandName))
      .map((event) => ({ name: event.commandName, inTransaction: (event.command as Document).autocommit === false }));
  }

  function keyed(bookId: string, customerId: string, purchaseId = `line-${customerId}`): PurchaseRequest {
    return { bookId, customerId, purchaseId };
  }

  describe("each keyed purchase", () => {
    it("take the path the deployment allows: one transaction where it accepts them, none where it refuses them with code 20", async () => {
      await createBook(database.db, { id: "path", title: "Path", author: "A" }, settings);
      const sent = await commandsOf(() => recordAsNewServer(database.db, keyed("path", "alice"), settings));

      if (transactional) {
        expect(sent.map((command) => command.name)).toEqual(["insert", "findAndModify", "update", "commitTransaction"]);
        expect(sent.every((command) => command.inTransaction)).toBe(true);
      } else {
        expect(await attemptATransaction(database.db)).toBe(20);
        expect(sent).toEqual(["insert", "findAndModify", "update"].map((name) => ({ name, inTransaction: false })));
      }
      expect(await storedPurchases(database.db, "path")).toEqual(["alice"]);
    });

    it("send no transaction with PURCHASE_TRANSACTIONS=off, whatever the deployment", async () => {
      await createBook(database.db, { id: "off", title: "Off", author: "A" }, settings);
      const sent = await commandsOf(() =>
        recordAsNewServer(database.db, keyed("off", "bob"), { ...settings, purchaseTransactions: "off" }),
      );
      expect(sent).toEqual(["insert", "findAndModify", "update"].map((name) => ({ name, inTransaction: false })));
    });

    it("record each purchaseId once when two clients race every request twice across the threshold and several new pages", async () => {
      await createBook(database.db, { id: "racing", title: "Racing", author: "A" }, settings);
      const buyers = customers(24, 0, "racer");
      // Two servers, each writing every purchase alone and learning outliers on its own.
      const alone = { sharing: { purchaseBatching: false, purchaseBatchMax: 1 } };
      const servers = [new PurchaseService(database.db, alone), new PurchaseService(other.db, alone)];

      const outcomes = await Promise.all(
        buyers.flatMap((buyer) => servers.map((server) => untilAnswered(() => server.record(keyed("racing", buyer), settings)))),
      ).finally(() => Promise.all(servers.map((server) => server.stop())));

      expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(buyers.length);
      expect((await storedPurchases(database.db, "racing")).sort()).toEqual(buyers);
      expect(await invariantViolations(database.db, "racing", settings)).toEqual([]);
      const { pages } = await storedBook(database.db, "racing");
      expect(pages.map((page) => page.count)).toEqual([4, 4, 4, 4, 4, 1]);
    });

    it("leave nothing of a purchase that fails after its claim and its flag: no claim and no purchase, and the flag rolled back where it was a transaction", async () => {
      await createBook(database.db, { id: "aborted", title: "Aborted", author: "A" }, settings);
      for (const buyer of customers(3)) await recordAsNewServer(database.db, keyed("aborted", buyer), settings);
      // Without the unique page index, opening the first page is refused (DATABASE_NOT_READY) after the book has been flagged.
      await extraSalesCollection(database.db).dropIndex(UNIQUE_PAGE_INDEX);
      try {
        await expect(recordAsNewServer(database.db, keyed("aborted", "late"), settings)).rejects.toMatchObject({
          code: "DATABASE_NOT_READY",
        });
      } finally {
        await ensureSalesIndexes(database.db);
      }

      expect(await claimsCollection(database.db).findOne({ _id: { book_id: "aborted", purchase_id: "line-late" } })).toBeNull();
      expect(await storedPurchases(database.db, "aborted")).toEqual(customers(3));
      const book = await salesCollection(database.db).findOne({ _id: "aborted" });
      // A standalone keeps the flag: harmless by design (readers then look in extra_sales first and find nothing).
      expect(book).toMatchObject({ has_extras: !transactional, purchase_count: 3 });
    });

    it("lay pages out the same whichever page step a purchase takes, one purchase at a time", async () => {
      await createBook(database.db, { id: "plain", title: "Plain", author: "A" }, settings);
      await createBook(database.db, { id: "stepped", title: "Stepped", author: "A" }, settings);
      const buyers = customers(13);
      // With a session the page is read then appended to or inserted, as inside a transaction; run one at a time, no racer can interfere.
      await database.client.withSession(async (session) => {
        for (const buyer of buyers) {
          await recordPurchase(database.db, "plain", buyer, settings);
          await recordPurchase(database.db, "stepped", buyer, settings, { session });
        }
      });

      const [plain, stepped] = [await storedBook(database.db, "plain"), await storedBook(database.db, "stepped")];
      const layout = (pages: typeof plain.pages) =>
        pages.map(({ page, count, customers_purchased_extra }) => ({ page, count, customers_purchased_extra }));
      expect(layout(stepped.pages)).toEqual(layout(plain.pages));
      expect(stepped.pages.map((page) => page.count)).toEqual([4, 4, 2]);
      expect(stepped.book).toMatchObject({ customers_purchased: customers(3), purchase_count: 13, has_extras: true });
      expect(await invariantViolations(database.db, "stepped", settings)).toEqual([]);
    });
  });
});
