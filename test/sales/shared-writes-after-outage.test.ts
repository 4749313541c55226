import { setTimeout as sleep } from "node:timers/promises";
import { startOfflineServer, type RunningOfflineServer } from "@bookstore/offline-mongo";
import type { CommandStartedEvent } from "mongodb";
import { connectToDatabase, type DatabaseConnection } from "../../src/db/connection";
import { createBook } from "../../src/sales/books";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import type { RunningServer } from "../../src/graphql/transport/server";
import { storedPurchases } from "../support/factories";
import { errorCodes, send, startTestHttpServer, type HttpAnswer } from "../support/http";

/**
 * Shared writes of purchases cut off by an outage at an exact step, over HTTP. The outage is the
 * in-process stand-in stopped from the driver's commandStarted event of the step's first command,
 * which the driver emits before sending it (as claim-release-after-outage.test.ts does), so this file
 * starts stand-ins of its own whatever the run's database: a standalone, and a replica set.
 */
const settings = { outlierThreshold: 2, extraSalesPageSize: 5 };
const RECORD = `mutation ($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
  recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) { storedIn replayed }
}`;
const CODES_OF_AN_OUTAGE = ["DATABASE_UNAVAILABLE", "REQUEST_TIMEOUT"];

interface Deployment {
  server: RunningOfflineServer;
  connection: DatabaseConnection;
  api: RunningServer;
}

async function startDeployment(replicaSet?: string): Promise<Deployment> {
  const server = await startOfflineServer(replicaSet === undefined ? {} : { replicaSet });
  const uri = replicaSet === undefined ? server.uri : `${server.uri.replace(/\/?$/, "/")}?directConnection=true`;
  // Server selection gives up quickly while the stand-in is stopped, as the service's driverTimeouts make it do.
  const connection = await connectToDatabase(
    uri,
    "shared_writes",
    { monitorCommands: true, serverSelectionTimeoutMS: 1_000 },
    { ensureIndexes: ensureSalesIndexes },
  );
  const api = await startTestHttpServer(connection.db, { settings });
  return { server, connection, api };
}

async function stopDeployment({ server, connection, api }: Deployment): Promise<void> {
  await api.stop();
  await connection.close();
  await server.stop();
}

/** Stops the stand-in as the first command matching `step` is about to be sent, once; resolves when it is stopped. */
function stopDatabaseAt({ server, connection }: Deployment, step: (event: CommandStartedEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const atStep = (event: CommandStartedEvent) => {
      if (!step(event)) return;
      connection.client.off("commandStarted", atStep);
      void server.stop().then(resolve);
    };
    connection.client.on("commandStarted", atStep);
  });
}

const onCollection = (commandName: string, collection: string) => (event: CommandStartedEvent) =>
  event.commandName === commandName && event.command[commandName] === collection;

/** A book that is already an outlier this API knows, so that its next purchases share writes of extra sales. */
async function knownOutlier(deployment: Deployment, bookId: string): Promise<void> {
  await createBook(deployment.connection.db, { id: bookId, title: "Shared", author: "A" }, settings);
  for (const customerId of ["first", "second", "third"]) {
    const answer = await send(deployment.api.url, { query: RECORD, variables: { bookId, customerId } });
    expect(answer.json?.errors).toBeUndefined();
  }
}

/**
 * Ten keyed purchases of `bookId` at once, as ten clients checking out together: the first to reach the
 * book's writer goes alone, the others wait for it and share the next write.
 */
function tenKeyedPurchases(api: RunningServer, bookId: string): Promise<HttpAnswer[]> {
  return Promise.all(
    Array.from({ length: 10 }, (_, index) =>
      send(api.url, { query: RECORD, variables: { bookId, customerId: `buyer-${index}`, purchaseId: purchaseIdOf(index) } }),
    ),
  );
}

/**
 * Stops the stand-in at the outcome updates of the second write, a shared one: every purchase it
 * carried is stored, none of its outcomes yet. Resolves, once stopped, with the purchaseId of the
 * outcome update it stopped at: a purchase stored whose outcome the outage cut off (the others of the
 * write fail before they are sent, at a closed pool).
 */
async function atTheSharedWritesOutcomes(deployment: Deployment): Promise<string> {
  let seen = 0;
  let cutOff = "";
  await stopDatabaseAt(deployment, (event) => {
    if (event.commandName !== "update" || event.command.update !== "purchase_requests" || ++seen < 2) return false;
    cutOff = (event.command.updates as { q: { _id: { purchase_id: string } } }[])[0]!.q._id.purchase_id;
    return true;
  });
  return cutOff;
}

const purchaseIdOf = (index: number) => `line-${index}`;
const purchaseIndexOf = (purchaseId: string) => Number(purchaseId.replace("line-", ""));

/** The buyers of `bookId` the ten purchases stored, sorted: each of them once when nothing was doubled. */
async function storedBuyers(deployment: Deployment, bookId: string): Promise<string[]> {
  return (await storedPurchases(deployment.connection.db, bookId)).filter((id) => id.startsWith("buyer-")).sort();
}

const BUYERS = Array.from({ length: 10 }, (_, index) => `buyer-${index}`);

describe("a shared write of keyed purchases on a standalone whose outcomes could not be stored", () => {
  let deployment: Deployment;
  beforeEach(async () => (deployment = await startDeployment()));
  afterEach(() => stopDeployment(deployment));

  it("keeps the outcomes once the database is back within a request's wait, so their purchases are acknowledged and stored once", async () => {
    await knownOutlier(deployment, "brief");
    const stopped = atTheSharedWritesOutcomes(deployment);
    const answers = tenKeyedPurchases(deployment.api, "brief");
    const cutOff = await stopped;
    await sleep(1_000);
    await deployment.server.restart();
    const answered = await answers;
    // Purchases the outage caught before their write was stored failed; their retries record them.
    const retried = await tenKeyedPurchases(deployment.api, "brief");

    expect(answered[purchaseIndexOf(cutOff)]!.json).toEqual({ data: { recordPurchase: { storedIn: "EXTRA_SALES", replayed: false } } });
    expect(answered.flatMap(errorCodes).filter((code) => !CODES_OF_AN_OUTAGE.includes(code as string))).toEqual([]);
    expect(retried.flatMap(errorCodes)).toEqual([]);
    expect(await storedBuyers(deployment, "brief")).toEqual(BUYERS);
  });

  it("answers their retries with the stored purchases after a longer outage, never recording them again", async () => {
    await knownOutlier(deployment, "long");
    const stopped = atTheSharedWritesOutcomes(deployment);
    const answers = tenKeyedPurchases(deployment.api, "long");
    const cutOff = await stopped;
    // Longer than a request keeps retrying its outcome (PurchaseIdTiming.waitMs, 3 s): those requests fail.
    const answered = await answers;
    await deployment.server.restart();
    const retried = await tenKeyedPurchases(deployment.api, "long");

    expect(answered.flatMap(errorCodes).filter((code) => !CODES_OF_AN_OUTAGE.includes(code as string))).toEqual([]);
    expect(retried.flatMap(errorCodes)).toEqual([]);
    expect(errorCodes(answered[purchaseIndexOf(cutOff)]!)).toEqual(["DATABASE_UNAVAILABLE"]);
    expect(retried[purchaseIndexOf(cutOff)]!.json).toEqual({ data: { recordPurchase: { storedIn: "EXTRA_SALES", replayed: true } } });
    expect(await storedBuyers(deployment, "long")).toEqual(BUYERS);
  });
});

describe("keyed purchases on a replica set whose connection is lost in their shared transaction's write", () => {
  let deployment: Deployment;
  beforeEach(async () => (deployment = await startDeployment("rs0")));
  afterEach(() => stopDeployment(deployment));

  it("are answered DATABASE_UNAVAILABLE, never INTERNAL_SERVER_ERROR, and a retry stores each once", async () => {
    await knownOutlier(deployment, "cut");
    const stopped = stopDatabaseAt(deployment, onCollection("insert", "purchase_requests"));
    const failed = await tenKeyedPurchases(deployment.api, "cut");
    await stopped;
    await deployment.server.restart();
    const retried = await tenKeyedPurchases(deployment.api, "cut");

    expect(failed.flatMap(errorCodes).filter((code) => !CODES_OF_AN_OUTAGE.includes(code as string))).toEqual([]);
    expect(retried.flatMap(errorCodes)).toEqual([]);
    expect(await storedBuyers(deployment, "cut")).toEqual(BUYERS);
  });
});
