import { setTimeout as sleep } from "node:timers/promises";
import type { Document } from "mongodb";
import pino from "pino";
import type { OutlierSettings } from "../../src/config";
import { driverTimeouts, openDatabase, type LiveDatabase } from "../../src/db/connection";
import { startHttpServer, type RunningServer } from "../../src/graphql/transport/server";
import { createBook } from "../../src/sales/books";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import { openTestDatabase, RUN_AND_REPLICA_SET, type TestDatabase } from "../support/database";
import { storedPurchases } from "../support/factories";
import { errorCodes, send } from "../support/http";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * The database's connection cut and restored again and again under load, through a TCP proxy between
 * the API and the run's database (or the replica set beside it): the outage an API sees when a network
 * path or a load balancer drops, without stopping the database. mongodb 7.9's server monitor can hang
 * for good on such a cut (see src/db/watchdog.ts); the API must come back after every one.
 */
// Issue 35 counted answers over 40 cuts on a replica set, where a cut between a transaction's last write and its commit
// once made the driver throw a TypeError (INTERNAL_SERVER_ERROR): its long form, 40 cuts there and 20 on the run's database
// (about 4 minutes), runs with TEST_SOAK=1, as `npm run bench -- --soak` does. `npm test` runs the same cases and assertions
// over 12 cuts on the replica set, every pairing of the waits below (cycle % 3 before a cut, cycle % 4 during it) once,
// and 4 on the run's database, where no transaction can be cut before its commit.
const SOAK = process.env.TEST_SOAK === "1";
// Over jest's default limit (jest.config.js): each cut is waited out for real, 2 to 5 s a cycle on a busy machine and up to
// READY_WITHIN_MS for a recovery that fails, over 12 cycles in the suite's form and 40 in the soak's.
const TIME_LIMIT_MS = (SOAK ? 900 : 240) * 1000;
const DEPLOYMENTS = RUN_AND_REPLICA_SET.map((deployment) => ({
  ...deployment,
  cycles: deployment.replicaSet ? (SOAK ? 40 : 12) : SOAK ? 20 : 4,
}));
// The recovery bound docs/operations/outages.md promises is 10 s after the database answers again; a loaded 2-core machine gets three times that.
const READY_WITHIN_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const SETTINGS: OutlierSettings = { outlierThreshold: 10, extraSalesPageSize: 25 };
const OUTAGE_CODES = ["DATABASE_UNAVAILABLE", "DATABASE_NOT_READY", "REQUEST_TIMEOUT", "PURCHASE_IN_PROGRESS"];
const RECORD = `mutation ($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
  recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) { storedIn }
}`;
const READ = `query ($id: ID!) { book(id: $id) { purchaseCount hasExtras } }`;
const logger = pino({ level: "silent" });
/** A write of a transaction (not its commit or abort): the command after it on its connection may be the commit. */
const inTransaction = (command: Document) =>
  command.autocommit === false && command.commitTransaction === undefined && command.abortTransaction === undefined;

/** The API over HTTP on a client that reaches the database only through `proxy`. */
async function openService(uri: string, dbName: string): Promise<{ live: LiveDatabase; server: RunningServer; origin: string }> {
  const live = openDatabase(uri, dbName, {
    ensureIndexes: ensureSalesIndexes,
    logger,
    retryMs: 200,
    ...driverTimeouts(REQUEST_TIMEOUT_MS),
  });
  const server = await startHttpServer(
    {
      db: live.db,
      settings: SETTINGS,
      logger,
      production: true,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      indexesInPlace: live.indexesInPlace,
      recoverable: live.recoverable,
    },
    0,
  );
  return { live, server, origin: server.url.replace(/\/graphql$/, "") };
}

/** The proxy's address for the deployment at `target`: a replica set is reached as one member, directly, as it would be behind a load balancer. */
function throughProxy(proxy: TcpProxy, replicaSet: boolean): string {
  const url = new URL(proxy.uri);
  if (replicaSet) {
    url.searchParams.delete("replicaSet");
    url.searchParams.set("directConnection", "true");
  }
  return url.toString();
}

/**
 * Clients as a storefront runs them: keyed purchases retried with their purchaseId until acknowledged,
 * unkeyed purchases sent once each, and reads; every refusal recorded.
 */
function streamClients(url: string, bookId: string) {
  const keyedAcknowledged: string[] = [];
  const unkeyedAcknowledged: string[] = [];
  const refusals: unknown[] = [];
  let streaming = true;
  const answer = async (body: unknown) => {
    const reply = await send(url, body);
    const codes = errorCodes(reply);
    // A 5xx without a code (an HTML error page, say) counts as a refusal of its own, never as no refusal.
    refusals.push(...(codes.length === 0 && reply.status >= 500 ? [`HTTP ${reply.status}`] : codes));
    return reply.json?.errors === undefined && reply.status === 200;
  };
  const keyed = async (worker: number) => {
    for (let attempt = 0; streaming; attempt += 1) {
      const customerId = `k${worker}-${attempt}`;
      const variables = { bookId, customerId, purchaseId: `line-${customerId}` };
      let stored = await answer({ query: RECORD, variables });
      // Given up only when the test stops: an API that never comes back fails the test rather than hang it.
      while (!stored && streaming) {
        await sleep(100);
        stored = await answer({ query: RECORD, variables });
      }
      if (stored) keyedAcknowledged.push(customerId);
    }
  };
  const unkeyed = async (worker: number) => {
    for (let attempt = 0; streaming; attempt += 1) {
      const customerId = `u${worker}-${attempt}`;
      if (await answer({ query: RECORD, variables: { bookId, customerId } })) unkeyedAcknowledged.push(customerId);
      else await sleep(100);
    }
  };
  const reads = async () => {
    while (streaming) if (!(await answer({ query: READ, variables: { id: bookId } }))) await sleep(100);
  };
  const running = [
    ...Array.from({ length: 8 }, (_, worker) => keyed(worker)),
    ...Array.from({ length: 8 }, (_, worker) => unkeyed(worker)),
    ...Array.from({ length: 4 }, () => reads()),
  ];
  return {
    keyedAcknowledged,
    unkeyedAcknowledged,
    refusals,
    stop: async () => {
      streaming = false;
      await Promise.all(running);
    },
  };
}

/** How long /readyz took to answer 200, or undefined when it did not within `withinMs`. */
async function readyAfter(origin: string, withinMs: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    const status = await fetch(`${origin}/readyz`)
      .then((response) => response.status)
      .catch(() => 0);
    if (status === 200) return Date.now() - started;
    await sleep(100);
  }
  return undefined;
}

const occurrences = (stored: string[]) => {
  const counts = new Map<string, number>();
  for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
  return (id: string) => counts.get(id) ?? 0;
};

describe.each(DEPLOYMENTS)(
  "the API on $deployment, its connection cut and restored again and again under load",
  ({ replicaSet, cycles }) => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let service: Awaited<ReturnType<typeof openService>>;
    beforeAll(async () => {
      database = await openTestDatabase({ replicaSet });
      proxy = await startTcpProxy(replicaSet ? process.env.TEST_REPLICA_SET_URI! : process.env.TEST_MONGODB_URI!);
      service = await openService(throughProxy(proxy, replicaSet), database.db.databaseName);
      await service.live.ready();
    });
    afterAll(async () => {
      await service.server.stop();
      await service.live.close();
      await proxy.close();
      await database.close();
    });

    it(
      `is ready again within ${READY_WITHIN_MS / 1000} s of every one of ${cycles} cuts, and stores every acknowledged purchase as docs/operations/outages.md promises`,
      async () => {
        const bookId = `chaos-${replicaSet ? "rs" : "standalone"}`;
        await createBook(database.db, { id: bookId, title: "Chaos", author: "A" }, SETTINGS);
        const clients = streamClients(service.server.url, bookId);
        const recoveries: (number | undefined)[] = [];
        try {
          for (let cycle = 0; cycle < cycles; cycle += 1) {
            await sleep(500 + (cycle % 3) * 250);
            // On the replica set a cut lands just after a transaction's write is answered, its connection reset first: some
            // fall between a keyed purchase's last write and its commit, which mongodb 7.9 answered with a TypeError (issue 35).
            if (replicaSet) await Promise.race([proxy.resetAfterReplyTo(inTransaction), sleep(5_000)]);
            await proxy.cut();
            await sleep(500 + (cycle % 4) * 250);
            await proxy.restore();
            const recovered = await readyAfter(service.origin, READY_WITHIN_MS);
            recoveries.push(recovered);
            if (recovered === undefined) break;
          }
        } finally {
          await clients.stop();
        }

        expect(recoveries.filter((recovered) => recovered === undefined)).toEqual([]);
        expect(recoveries).toHaveLength(cycles);
        expect((await fetch(`${service.origin}/healthz`)).status).toBe(200);
        // Every refusal an outage's, INTERNAL_SERVER_ERROR none.
        expect(clients.refusals.filter((code) => !OUTAGE_CODES.includes(code as string))).toEqual([]);
        const timesStored = occurrences(await storedPurchases(database.db, bookId));
        // Keyed: exactly once where the claim, the purchase and its outcome are one transaction; at least once on a standalone.
        const keyedWrong = clients.keyedAcknowledged.filter((id) => (replicaSet ? timesStored(id) !== 1 : timesStored(id) < 1));
        expect(keyedWrong.map((id) => [id, timesStored(id)])).toEqual([]);
        expect(clients.unkeyedAcknowledged.filter((id) => timesStored(id) !== 1).map((id) => [id, timesStored(id)])).toEqual([]);
        // Both kinds of purchase got through between cuts. Keyed ones are few on a replica set: a transaction cut off holds its
        // pages until the server's 60 s transaction lifetime ends it, and racing transactions give up at the request's limit.
        expect(clients.keyedAcknowledged.length).toBeGreaterThan(0);
        expect(clients.unkeyedAcknowledged.length).toBeGreaterThan(cycles);
      },
      TIME_LIMIT_MS,
    );
  },
);
