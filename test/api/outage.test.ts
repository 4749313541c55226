import { setTimeout as sleep } from "node:timers/promises";
import { MongoMemoryServer } from "mongodb-memory-server";
import { MongoClient, type Db } from "mongodb";
import pino from "pino";
import type { OutlierSettings } from "../../src/config";
import { driverTimeouts, openDatabase, type LiveDatabase } from "../../src/db/connection";
import { startOfflineServer } from "@bookstore/offline-mongo";
import { startHttpServer, type RunningServer } from "../../src/graphql/transport/server";
import { repairViolations } from "../../src/maintenance/reconcile/repairs";
import { findViolations } from "../../src/maintenance/reconcile/scan";
import { customers, seedBook, storedPurchases } from "../support/factories";
import { errorCodes, send } from "../support/http";
import { ensureSalesIndexes } from "../../src/sales/indexes";

/**
 * These tests stop and restart the database, so, alone among the tests, they do not use the run's
 * shared database but start their own: a mongod from mongodb-memory-server when the run found one
 * (stopped without cleanup and started again on its port, it keeps its data files), else the
 * offline stand-in, whose restart keeps its data in memory.
 */
interface RestartableDatabase {
  uri: string;
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function startRestartableDatabase(): Promise<RestartableDatabase> {
  if (process.env.TEST_DATABASE_KIND === "mongodb-memory-server") {
    const mongod = await MongoMemoryServer.create();
    return {
      uri: mongod.getUri(),
      stop: async () => void (await mongod.stop({ doCleanup: false })),
      restart: () => mongod.start(true),
      close: async () => void (await mongod.stop()),
    };
  }
  const offline = await startOfflineServer();
  return { uri: offline.uri, stop: () => offline.stop(), restart: () => offline.restart(), close: () => offline.stop() };
}

// The service's default: at 2 s, a request slowed by a busy 2-core machine (not by the outage) was
// answered REQUEST_TIMEOUT. Server selection still gives up after a tenth of it, 1 s.
const REQUEST_TIMEOUT_MS = 10_000;
const SETTINGS: OutlierSettings = { outlierThreshold: 10, extraSalesPageSize: 25 };
const logger = pino({ level: "silent" });
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { storedIn } }`;

async function openService(
  uri: string,
  settings = SETTINGS,
  indexCheckMs?: number,
): Promise<{ live: LiveDatabase; server: RunningServer; origin: string }> {
  const live = openDatabase(uri, "outage", {
    ensureIndexes: ensureSalesIndexes,
    logger,
    retryMs: 50,
    indexCheckMs,
    ...driverTimeouts(REQUEST_TIMEOUT_MS),
  });
  const server = await startHttpServer(
    { db: live.db, settings, logger, production: true, requestTimeoutMs: REQUEST_TIMEOUT_MS, indexesInPlace: live.indexesInPlace },
    0,
  );
  return { live, server, origin: server.url.replace(/\/graphql$/, "") };
}

/** Clients recording purchases of one book as fast as they can, each customer id once, until stopped. */
function streamPurchases(url: string, bookId: string, workers: number) {
  const acknowledged: string[] = [];
  const refusals: unknown[] = [];
  let streaming = true;
  const stream = async (worker: number) => {
    for (let attempt = 0; streaming; attempt += 1) {
      const customerId = `w${worker}-${attempt}`;
      const answer = await send(url, { query: RECORD, variables: { bookId, customerId } });
      if (answer.json?.errors) refusals.push(...errorCodes(answer));
      else acknowledged.push(customerId);
    }
  };
  const running = Array.from({ length: workers }, (_, worker) => stream(worker));
  const until = async (condition: () => boolean) => {
    while (!condition()) await sleep(10);
  };
  return {
    acknowledged,
    refusals,
    until,
    untilAcknowledged: (count: number) => until(() => acknowledged.length >= count),
    stop: async () => {
      streaming = false;
      await Promise.all(running);
    },
  };
}

/**
 * Every refusal one a client retries (with the same purchaseId), among them each of `expected`. On a busy
 * machine a purchase slowed by the outage may also outlive its time limit (REQUEST_TIMEOUT): retryable too.
 */
function expectRetryableRefusals(refusals: unknown[], expected: string[]): void {
  expect(refusals.filter((code) => !["DATABASE_UNAVAILABLE", "DATABASE_NOT_READY", "REQUEST_TIMEOUT"].includes(code as string))).toEqual(
    [],
  );
  expect(refusals).toEqual(expect.arrayContaining(expected));
}

/** Every acknowledged purchase stored exactly once, nothing stored twice, and the invariants intact once reconcile --fix has repaired lagging counts. */
async function expectStoredOnceAndConsistent(db: Db, bookId: string, acknowledged: string[], settings: OutlierSettings): Promise<void> {
  const stored = await storedPurchases(db, bookId);
  const storedOnce = (customerId: string) => stored.filter((id) => id === customerId).length === 1;
  expect(acknowledged.filter((customerId) => !storedOnce(customerId))).toEqual([]);
  expect(new Set(stored).size).toBe(stored.length);

  // A purchase cut off between its append and its count leaves the count behind: reconcile --fix repairs it.
  const found = await findViolations(db, settings);
  expect(found.filter((violation) => !violation.repair)).toEqual([]);
  await repairViolations(db, found);
  expect(await findViolations(db, settings)).toEqual([]);
}

async function readiness(origin: string): Promise<number> {
  return (await fetch(`${origin}/readyz`)).status;
}

async function untilReady(origin: string): Promise<void> {
  while ((await readiness(origin)) !== 200) await sleep(50);
}

describe("start-up while the database is down", () => {
  let database: RestartableDatabase;
  let service: Awaited<ReturnType<typeof openService>>;
  beforeAll(async () => {
    database = await startRestartableDatabase();
    await database.stop();
    service = await openService(database.uri);
  });
  afterAll(async () => {
    await service.server.stop();
    await service.live.close();
    await database.close();
  });

  it("runs, is alive but not ready, and fails GraphQL requests at once with DATABASE_UNAVAILABLE", async () => {
    expect((await fetch(`${service.origin}/healthz`)).status).toBe(200);
    expect(await readiness(service.origin)).toBe(503);
    const answer = await send(service.server.url, { query: `{ book(id: "1") { title } }` });
    // DATABASE_UNAVAILABLE rather than REQUEST_TIMEOUT: the request ended before its time limit.
    expect([answer.status, errorCodes(answer)]).toEqual([200, ["DATABASE_UNAVAILABLE"]]);
    expect(answer.json?.errors?.[0]?.message).toMatch(/database is unavailable/);
  });

  it("keeps the start-up steps that need the database waiting, instead of failing them", async () => {
    const waited = await Promise.race([service.live.ready().then(() => "ready"), sleep(500).then(() => "still waiting")]);
    expect(waited).toBe("still waiting");
  });

  it("becomes ready by itself once the database is back, with its indexes in place", async () => {
    await database.restart();
    await service.live.ready();
    await untilReady(service.origin);
    const indexes = await service.live.db.collection("extra_sales").indexes();
    expect(indexes.map((index) => index.name)).toContain("book_id_1_page_1");
    const answer = await send(service.server.url, { query: `{ books { totalCount } }` });
    expect(answer.json).toEqual({ data: { books: { totalCount: 0 } } });
  });
});

it("tells the start-up steps waiting for the database when it is closed before it ever answered", async () => {
  const database = await startRestartableDatabase();
  await database.stop();
  const live = openDatabase(database.uri, "outage", {
    ensureIndexes: ensureSalesIndexes,
    logger,
    retryMs: 50,
    ...driverTimeouts(REQUEST_TIMEOUT_MS),
  });
  const ready = live.ready();
  await live.close();
  await expect(ready).rejects.toThrow(/closed before it was ready/);
  await database.close();
});

describe("losing the database while purchases stream in", () => {
  const BOOK = "outage";
  const WORKERS = 16;
  let database: RestartableDatabase;
  let service: Awaited<ReturnType<typeof openService>>;
  beforeAll(async () => {
    database = await startRestartableDatabase();
    service = await openService(database.uri);
    await untilReady(service.origin);
    await seedBook(service.live.db, BOOK, customers(5), SETTINGS);
  });
  afterAll(async () => {
    await service.server.stop();
    await service.live.close();
    await database.close();
  });

  it("acknowledges only what it stored, exactly once, answers the rest with a retryable code, and keeps the invariants", async () => {
    const purchases = streamPurchases(service.server.url, BOOK, WORKERS);
    await purchases.untilAcknowledged(100);
    await database.stop();
    await sleep(500);
    await database.restart();
    await purchases.untilAcknowledged(purchases.acknowledged.length + 100);
    await purchases.stop();

    expectRetryableRefusals(purchases.refusals, ["DATABASE_UNAVAILABLE"]);
    await expectStoredOnceAndConsistent(service.live.db, BOOK, purchases.acknowledged, SETTINGS);
  });
});

describe("the database coming back without its indexes while purchases race", () => {
  const BOOK = "lost-indexes";
  const WORKERS = 16;
  // Every purchase goes to extra_sales, and every third one opens a page: the unique page index is what keeps racers from opening one twice.
  const RACING: OutlierSettings = { outlierThreshold: 2, extraSalesPageSize: 3 };
  let database: RestartableDatabase;
  let service: Awaited<ReturnType<typeof openService>>;
  let admin: MongoClient;
  beforeAll(async () => {
    database = await startRestartableDatabase();
    // No periodic check within the test: only the reconnection can bring the indexes back.
    service = await openService(database.uri, RACING, 3_600_000);
    await untilReady(service.origin);
    await seedBook(service.live.db, BOOK, customers(4), RACING);
  });
  afterAll(async () => {
    await service.server.stop();
    await service.live.close();
    await database.close();
  });

  const dropIndexes = async () => {
    admin = new MongoClient(database.uri);
    const db = admin.db("outage");
    await Promise.all(["extra_sales", "sales", "purchase_requests"].map((name) => db.collection(name).dropIndexes()));
    await admin.close();
  };
  const indexNames = async (db: Db) =>
    (await db.collection("extra_sales").indexes()).map((index) => `${index.name}${index.unique ? " unique" : ""}`);

  it("refuses purchases into extra_sales with DATABASE_NOT_READY while the page index is missing, re-creates the indexes once the database is back, and never duplicates a page", async () => {
    const purchases = streamPurchases(service.server.url, BOOK, WORKERS);
    await purchases.untilAcknowledged(60);
    await dropIndexes();
    await purchases.until(() => purchases.refusals.includes("DATABASE_NOT_READY"));
    await database.stop();
    await database.restart();
    await untilReady(service.origin);
    expect(await indexNames(service.live.db)).toEqual(["_id_", "book_id_1_page_1 unique", "customers_purchased_extra_1_book_id_1"]);
    await purchases.untilAcknowledged(purchases.acknowledged.length + 60);
    await purchases.stop();

    expectRetryableRefusals(purchases.refusals, ["DATABASE_NOT_READY", "DATABASE_UNAVAILABLE"]);
    await expectStoredOnceAndConsistent(service.live.db, BOOK, purchases.acknowledged, RACING);
  });

  it("re-creates indexes dropped while connected at its next periodic check", async () => {
    const watchful = await openService(database.uri, RACING, 100);
    try {
      await untilReady(watchful.origin);
      await dropIndexes();
      while (!(await indexNames(watchful.live.db)).includes("book_id_1_page_1 unique")) await sleep(50);
      const answer = await send(watchful.server.url, { query: RECORD, variables: { bookId: BOOK, customerId: "after-the-drop" } });
      expect(answer.json).toEqual({ data: { recordPurchase: { storedIn: "EXTRA_SALES" } } });
    } finally {
      await watchful.server.stop();
      await watchful.live.close();
    }
  });
});
