import { setTimeout as sleep } from "node:timers/promises";
import { MongoClient } from "mongodb";
import { isDatabaseReachable } from "../../src/db/connection";
import { watchConnection, type ConnectionWatchdog } from "../../src/db/watchdog";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { startTestHttpServer } from "../support/http";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * The watchdog's judgement on real clients: the service's client reaches the database through a proxy
 * the test cuts, while the fresh client the watchdog probes with goes through another, so that the
 * database can answer others but not this client, or answer no one. Short timings keep each case to seconds.
 */
const TIMING = { tickMs: 100, probeAfterMs: 300, unrecoverableAfterMs: 1_500 };

let database: TestDatabase;
let serviceRoute: TcpProxy;
let probeRoute: TcpProxy;
let client: MongoClient;
let watchdog: ConnectionWatchdog | undefined;
let api: RunningServer | undefined;
let reconnections: number[];

beforeEach(async () => {
  database = await openTestDatabase();
  serviceRoute = await startTcpProxy(process.env.TEST_MONGODB_URI!);
  probeRoute = await startTcpProxy(process.env.TEST_MONGODB_URI!);
  client = await new MongoClient(serviceRoute.uri, { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 }).connect();
  reconnections = [];
  watchdog = watchConnection(
    client,
    {
      probe: async () => {
        const probe = new MongoClient(probeRoute.uri, { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 });
        try {
          return await isDatabaseReachable(probe.db("admin"));
        } finally {
          await probe.close();
        }
      },
      reachable: () => isDatabaseReachable(client.db("admin")),
      reconnect: async () => {
        await client.close();
        await client.connect().catch(() => undefined);
      },
      onReconnect: (unavailableMs) => reconnections.push(unavailableMs),
    },
    TIMING,
  );
  api = await startTestHttpServer(database.db, { recoverable: watchdog.healthy });
});
afterEach(async () => {
  watchdog?.stop();
  await api?.stop();
  await client.close();
  await serviceRoute.close();
  await probeRoute.close();
  await database.close();
});

const healthz = async () => (await fetch(new URL("/healthz", api!.url))).status;

/** Makes the client notice the cut: its next operation fails and its server becomes Unknown. */
async function cutTheService(): Promise<void> {
  await serviceRoute.cut();
  expect(await isDatabaseReachable(client.db("admin"))).toBe(false);
}

describe("the connection watchdog", () => {
  it("leaves a client alone while the database answers no one, and /healthz stays 200", async () => {
    await cutTheService();
    await probeRoute.cut();
    await sleep(TIMING.unrecoverableAfterMs * 2);

    expect(reconnections).toEqual([]);
    expect(watchdog!.healthy()).toBe(true);
    expect(await healthz()).toBe(200);
  });

  it("reconnects a client that stays unreachable while a fresh connection reaches the database, and it recovers", async () => {
    await cutTheService();
    await sleep(TIMING.probeAfterMs + TIMING.tickMs * 5);
    await serviceRoute.restore();
    while (!(await isDatabaseReachable(client.db("admin")))) await sleep(50);

    expect(reconnections.length).toBeGreaterThan(0);
    expect(reconnections[0]).toBeGreaterThanOrEqual(TIMING.probeAfterMs);
    expect(watchdog!.healthy()).toBe(true);
    expect(await healthz()).toBe(200);
  });

  it("fails /healthz once the database has answered others for its bound while this client, reconnected, still cannot reach it", async () => {
    await cutTheService();
    while (watchdog!.healthy()) await sleep(50);

    expect(watchdog!.reconnections()).toBeGreaterThan(0);
    expect(await healthz()).toBe(503);
    await serviceRoute.restore();
    while (!(await isDatabaseReachable(client.db("admin")))) await sleep(50);
    expect(watchdog!.healthy()).toBe(true);
  });
});
