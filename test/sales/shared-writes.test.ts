import { ensureSalesIndexes, UNIQUE_PAGE_INDEX } from "../../src/sales/indexes";
import { createBook } from "../../src/sales/books";
import { extraSalesCollection } from "../../src/sales/documents";
import { PurchaseService } from "../../src/sales/purchase-service";
import type { PurchaseRequest } from "../../src/sales/purchases";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, invariantViolations, storedPurchases } from "../support/factories";
import { untilAnswered } from "../support/until-answered";

// Pages of 40 and 200 racers: the racers cross five page boundaries, and a batch of up to 100 splits across them.
const settings = { outlierThreshold: 5, extraSalesPageSize: 40 };
const RACERS = 200;
const EXTRA_SALES_BEFORE = 30;
const BEFORE = settings.outlierThreshold + EXTRA_SALES_BEFORE;

// On the run's database and on a replica set, where keyed purchases are transactions and share one per batch.
describe.each([
  { deployment: "the run's database", replicaSet: false },
  { deployment: "a replica set", replicaSet: true },
])("on $deployment", ({ replicaSet }) => {
  let database: TestDatabase;
  beforeAll(async () => void (database = await openTestDatabase({ replicaSet })));
  afterAll(() => database.close());

  /** One server's purchase service, with or without shared writes, and the size of every shared write it starts. */
  function testServer(purchaseBatching: boolean) {
    const batchSizes: number[] = [];
    const onSharedWrite = (purchases: number) => void batchSizes.push(purchases);
    const purchases = new PurchaseService(database.db, {
      sharing: { purchaseBatching, purchaseBatchMax: 100 },
      observers: { onSharedWrite },
    });
    return { purchases, batchSizes };
  }

  type TestServer = ReturnType<typeof testServer>;

  const record = (request: PurchaseRequest, { purchases }: TestServer) => purchases.record(request, settings);

  /** An outlier whose open page holds EXTRA_SALES_BEFORE purchases, recorded one at a time through `server`, which so knows it is an outlier. */
  async function outlier(bookId: string, server: TestServer): Promise<string[]> {
    await createBook(database.db, { id: bookId, title: "Launch day", author: "A" }, settings);
    const before = customers(BEFORE, 0, "before-");
    for (const customerId of before) await record({ bookId, customerId }, server);
    server.batchSizes.length = 0;
    return before;
  }

  describe.each([
    ["on", true],
    ["off", false],
  ])("%d purchases racing on one outlier across page boundaries, batching %s".replace("%d", String(RACERS)), (label, batching) => {
    it("stores each purchase exactly once, pages full but the last, the count matching, and nothing for reconcile", async () => {
      const server = testServer(batching);
      const bookId = `race-${label}`;
      const before = await outlier(bookId, server);
      const racers = customers(RACERS, 0, "racer-");

      const outcomes = await Promise.all(racers.map((customerId) => record({ bookId, customerId }, server)));

      const stored = await storedPurchases(database.db, bookId);
      expect(stored.slice(0, BEFORE)).toEqual(before);
      expect([...stored.slice(BEFORE)].sort()).toEqual([...racers].sort());
      expect(await invariantViolations(database.db, bookId, settings)).toEqual([]);
      expect(Math.max(...outcomes.map((outcome) => outcome.book.purchase_count))).toBe(BEFORE + RACERS);
      const perWrite = outcomes.map((outcome) => outcome.purchasesInWrite);
      if (batching) {
        expect(server.batchSizes.reduce((sum, size) => sum + size, 0)).toBe(RACERS);
        expect(Math.max(...perWrite)).toBeGreaterThan(1);
        expect(server.batchSizes.length).toBeLessThan(RACERS);
      } else {
        expect(new Set(perWrite)).toEqual(new Set([1]));
      }
    });

    // Over jest's default limit (jest.config.js): with batching off, the racing copies retry their transactions' write
    // conflicts at once (untilAnswered), CPU-bound work of about 10 s on an idle 2-core machine, 40 s on a busy one and
    // 110 s on one running other developers' suites beside this one's three workers.
    it("records each purchaseId once when every purchase is sent twice at once, as a client retrying after a timeout would", async () => {
      const server = testServer(batching);
      const bookId = `retried-${label}`;
      const before = await outlier(bookId, server);
      const requests = customers(RACERS / 2, 0, "keyed-").map((customerId, line) => ({ bookId, customerId, purchaseId: `order-${line}` }));

      // Each request twice in a row: both copies often share a batch, and a copy arriving later finds the first one's claim.
      const outcomes = await Promise.all(
        requests.flatMap((request) => [request, request]).map((request) => untilAnswered(() => record(request, server))),
      );

      expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(requests.length);
      if (batching) expect(Math.max(...outcomes.map((outcome) => outcome.purchasesInWrite))).toBeGreaterThan(1);
      const stored = await storedPurchases(database.db, bookId);
      expect(stored.slice(0, BEFORE)).toEqual(before);
      expect([...stored.slice(BEFORE)].sort()).toEqual(requests.map((request) => request.customerId).sort());
      expect(await invariantViolations(database.db, bookId, settings)).toEqual([]);
    }, 180_000);

    it("answers every purchase of a failed write with the error a lone purchase gets, stores none, and records each once when retried", async () => {
      const server = testServer(batching);
      const bookId = `refused-${label}`;
      const before = await outlier(bookId, server);
      const requests = customers(50, 0, "refused-").map((customerId, line) => ({ bookId, customerId, purchaseId: `line-${line}` }));
      // Without the unique page index every append to extra_sales is refused before it writes anything.
      await extraSalesCollection(database.db).dropIndex(UNIQUE_PAGE_INDEX);
      const refused = await Promise.allSettled(requests.map((request) => record(request, server))).finally(() =>
        ensureSalesIndexes(database.db),
      );

      expect(refused.map((answer) => answer.status === "rejected" && (answer.reason as { code?: string }).code)).toEqual(
        requests.map(() => "DATABASE_NOT_READY"),
      );
      if (batching) expect(server.batchSizes.length).toBeLessThan(requests.length);
      expect(await storedPurchases(database.db, bookId)).toEqual(before);

      const retried = await Promise.all(requests.map((request) => untilAnswered(() => record(request, server))));

      expect(retried.filter((outcome) => outcome.replayed)).toEqual([]);
      const stored = await storedPurchases(database.db, bookId);
      expect([...stored.slice(BEFORE)].sort()).toEqual(requests.map((request) => request.customerId).sort());
      expect(await invariantViolations(database.db, bookId, settings)).toEqual([]);
    });

    if (replicaSet) {
      it("runs keyed purchases in transactions: one per shared write with batching on, one each with it off", async () => {
        const server = testServer(batching);
        const bookId = `commits-${label}`;
        await outlier(bookId, server);
        const requests = customers(60, 0, "commit-").map((customerId, line) => ({ bookId, customerId, purchaseId: `c-${line}` }));
        database.commands.reset();

        await Promise.all(requests.map((request) => untilAnswered(() => record(request, server))));

        const commits = database.commands.names().filter((name) => name === "commitTransaction").length;
        if (batching) {
          expect(commits).toBe(server.batchSizes.length);
          expect(commits).toBeLessThan(requests.length);
        } else {
          expect(commits).toBeGreaterThanOrEqual(requests.length);
        }
        expect([...(await storedPurchases(database.db, bookId)).slice(BEFORE)].sort()).toEqual(requests.map((r) => r.customerId).sort());
      });

      it("moves keyed purchases of an outlier this server has not seen into shared transactions once one of them has taught it", async () => {
        const bookId = `cold-${label}`;
        await outlier(bookId, testServer(batching));
        // A server that has not seen the book: its first purchases each take a transaction of their own, and conflict.
        const server = testServer(batching);
        const requests = customers(60, 0, "cold-").map((customerId, line) => ({ bookId, customerId, purchaseId: `cold-${line}` }));
        database.commands.reset();

        await Promise.all(requests.map((request) => untilAnswered(() => record(request, server))));

        const commits = database.commands.names().filter((name) => name === "commitTransaction").length;
        if (batching) expect(commits).toBeLessThan(requests.length);
        else expect(commits).toBeGreaterThanOrEqual(requests.length);
        expect([...(await storedPurchases(database.db, bookId)).slice(BEFORE)].sort()).toEqual(requests.map((r) => r.customerId).sort());
        expect(await invariantViolations(database.db, bookId, settings)).toEqual([]);
      });

      it("costs a lone keyed purchase of a known outlier one transaction, its claim inserted with its outcome when it may share one", async () => {
        const server = testServer(batching);
        const bookId = `lone-keyed-${label}`;
        await outlier(bookId, server);
        database.commands.reset();

        await record({ bookId, customerId: "alone", purchaseId: "alone" }, server);

        // Claim, last page, append, count, (outcome on the claim,) commit.
        const shared = ["insert", "find", "update", "findAndModify", "commitTransaction"];
        const alone = ["insert", "find", "update", "findAndModify", "update", "commitTransaction"];
        expect(database.commands.names()).toEqual(batching ? shared : alone);
      });
    }

    it("costs a lone purchase of a known outlier the same two round trips as ever: append and count", async () => {
      const server = testServer(batching);
      const bookId = `lone-${label}`;
      await outlier(bookId, server);
      database.commands.reset();

      const outcome = await record({ bookId, customerId: "alone" }, server);

      expect(database.commands.names()).toEqual(["findAndModify", "findAndModify"]);
      expect(outcome.purchasesInWrite).toBe(1);
    });
  });
});
