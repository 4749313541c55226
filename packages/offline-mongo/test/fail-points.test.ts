import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { MongoBulkWriteError, MongoNetworkError, MongoServerError, MongoWriteConcernError, type Collection, type Document } from "mongodb";
import { startOfflineServer } from "../src";
import { newClient, useTestDatabase, type TestDatabase } from "./connect";

/** A fresh collection of documents numbered by `_id`. */
function numbered(database: TestDatabase): Collection<{ _id: number; n?: number }> {
  return database.db.collection(database.freshCollection().collectionName);
}

// A replica set with test commands enabled: MONGODB_REPLICA_SET_URI (a mongod started with
// --setParameter enableTestCommands=1) when set, else the stand-in as a one-member set.
const target = useTestDatabase("fail_points", { offlineServer: { replicaSet: "rs0", enableTestCommands: true } });

const execFileAsync = promisify(execFile);
const FAILED = "Failing command via 'failCommand' failpoint";

function configure(mode: Document | string, data: Document = {}): Promise<Document> {
  return target.client.db("admin").command({ configureFailPoint: "failCommand", mode, data });
}

afterEach(() => configure("off"));

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => "ok",
    (error: unknown) => error,
  );
}

const ping = () => outcome(target.db.command({ ping: 1 }));

/**
 * Pings from a client named `appName` in a process of its own, and returns "ok" or the error's code: under jest
 * the driver sends an empty handshake `client` document (driver 7.9 reads the OS through a dynamic `import()`,
 * which jest's CommonJS sandbox rejects without --experimental-vm-modules, and the driver swallows the error),
 * so a client inside jest names its application only when handed `os` as a runtime adapter; a process of its own
 * runs the driver as users do.
 */
async function pingAs(appName: string): Promise<string> {
  const script = `const { MongoClient } = require("mongodb");
    const client = new MongoClient(process.argv[1], { appName: process.argv[2], serverSelectionTimeoutMS: 5000 });
    client.db("admin").command({ ping: 1 })
      .then(() => "ok", (error) => String(error.code))
      .then((answer) => { process.stdout.write(answer); return client.close(); });`;
  const { stdout } = await execFileAsync(process.execPath, ["-e", script, target.uri, appName], { cwd: __dirname });
  return stdout;
}

describe("failCommand", () => {
  it("fails a listed command with errorCode and mongod's message, and answers the times it fired so far as count", async () => {
    const before = await configure("alwaysOn", { failCommands: ["ping"], errorCode: 8 });
    expect(await ping()).toMatchObject({ code: 8, codeName: "UnknownError", message: FAILED });
    expect(await ping()).toMatchObject({ code: 8 });
    const after = await configure("off");
    expect(after["count"] - before["count"]).toBe(2);
    expect(await ping()).toBe("ok");
  });

  it("leaves unlisted commands alone, hello and isMaster included; isMaster fails under its alias ismaster too", async () => {
    await configure("alwaysOn", { failCommands: ["ping"], errorCode: 2 });
    for (const command of [{ hello: 1 }, { isMaster: 1 }, { buildInfo: 1 }, { find: "c" }]) {
      expect(await outcome(target.db.command(command))).toBe("ok");
    }
    await configure("alwaysOn", { failCommands: ["isMaster"], errorCode: 2 });
    expect(await outcome(target.db.command({ ismaster: 1 }))).toMatchObject({ code: 2 });
    expect(await outcome(target.db.command({ hello: 1 }))).toBe("ok");
  });

  it("with mode times fails that many listed commands and turns itself off; unlisted commands do not count", async () => {
    await configure({ times: 2 }, { failCommands: ["ping"], errorCode: 2 });
    expect(await outcome(target.db.command({ hello: 1 }))).toBe("ok");
    expect([await ping(), await ping(), await ping()]).toEqual([
      expect.objectContaining({ code: 2 }),
      expect.objectContaining({ code: 2 }),
      "ok",
    ]);
  });

  it("with mode skip lets that many listed commands through first; unlisted commands do not count", async () => {
    await configure({ skip: 2 }, { failCommands: ["ping"], errorCode: 2 });
    expect(await outcome(target.db.command({ buildInfo: 1 }))).toBe("ok");
    expect([await ping(), await ping(), await ping()]).toEqual(["ok", "ok", expect.objectContaining({ code: 2 })]);
  });

  it("never fails configureFailPoint itself", async () => {
    await configure("alwaysOn", { failCommands: ["configureFailPoint"], errorCode: 2 });
    expect(await outcome(configure("off"))).toBe("ok");
  });

  it("gives the error the errorLabels it names, and none for an empty list", async () => {
    await configure({ times: 1 }, { failCommands: ["ping"], errorCode: 2, errorLabels: ["Foo", "Bar"] });
    expect(await ping()).toMatchObject({ code: 2, errorLabels: ["Foo", "Bar"] });
    await configure({ times: 1 }, { failCommands: ["ping"], errorCode: 2, errorLabels: [] });
    const unlabelled = await ping();
    expect(unlabelled).toBeInstanceOf(MongoServerError);
    expect((unlabelled as MongoServerError).errorLabels).toEqual([]);
  });

  it("labels a WriteConflict inside a transaction TransientTransactionError, unless errorLabels says otherwise", async () => {
    const collection = numbered(target);
    await collection.insertOne({ _id: 1 });
    for (const [errorLabels, expected] of [
      [undefined, ["TransientTransactionError"]],
      [[], []],
    ] as const) {
      await configure({ times: 1 }, { failCommands: ["update"], errorCode: 112, ...(errorLabels ? { errorLabels } : {}) });
      const session = target.client.startSession();
      session.startTransaction();
      const error = await outcome(collection.updateOne({ _id: 1 }, { $set: { x: 1 } }, { session }));
      await session.abortTransaction();
      await session.endSession();
      expect(error).toMatchObject({ code: 112 });
      expect((error as MongoServerError).errorLabels).toEqual(expected);
    }
  });

  it("labels a retriable error of a retryable write RetryableWriteError, so the driver retries it once", async () => {
    const collection = numbered(target);
    await configure({ times: 2 }, { failCommands: ["insert"], errorCode: 262 });
    const error = await outcome(collection.insertOne({ _id: 1 }));
    expect(error).toMatchObject({ code: 262, codeName: "ExceededTimeLimit" });
    expect((error as MongoServerError).errorLabels).toContain("RetryableWriteError");
    expect(await collection.countDocuments()).toBe(0);

    await configure({ times: 1 }, { failCommands: ["insert"], errorCode: 262 });
    await collection.insertOne({ _id: 2 });
    expect(await collection.find().toArray()).toEqual([{ _id: 2 }]);
  });

  it("closes the connection instead of answering: the driver sees a network error", async () => {
    await configure({ times: 1 }, { failCommands: ["ping"], closeConnection: true });
    expect(await ping()).toBeInstanceOf(MongoNetworkError);
    expect(await ping()).toBe("ok");
  });

  it("closes the connection of a retryable write, which the driver retries once: the document is stored once", async () => {
    const collection = numbered(target);
    await configure({ times: 1 }, { failCommands: ["update"], closeConnection: true });
    await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { upsert: true });
    expect(await collection.find().toArray()).toEqual([{ _id: 1, n: 1 }]);
  });

  it("blocks the listed command's connection for blockTimeMS, then runs it, while other connections carry on", async () => {
    const other = newClient(target.uri, { discover: true });
    try {
      await other.db("admin").command({ ping: 1 });
      await configure({ times: 1 }, { failCommands: ["insert"], blockConnection: true, blockTimeMS: 1_500 });
      const collection = numbered(target);
      const started = Date.now();
      const blocked = collection.insertOne({ _id: 1 }).then(() => Date.now() - started);
      // Let the blocked insert reach the server before the other client's command.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await other.db(target.db.databaseName).collection<{ _id: number }>(collection.collectionName).insertOne({ _id: 2 });
      const otherDone = Date.now() - started;
      const blockedFor = await blocked;
      expect(blockedFor).toBeGreaterThanOrEqual(1_500);
      expect(otherDone).toBeLessThan(blockedFor);
      expect(await collection.countDocuments()).toBe(2);
    } finally {
      await other.close();
    }
  });

  it("fails a blocking command that names no blockTimeMS with 72 InvalidOptions", async () => {
    await configure({ times: 1 }, { failCommands: ["ping"], blockConnection: true });
    expect(await ping()).toMatchObject({ code: 72, message: "must specify 'blockTimeMS' when 'blockConnection' is true" });
  });

  it("adds its writeConcernError to a listed write, which still applies; commands without a write concern do not count", async () => {
    const collection = numbered(target);
    const writeConcernError = { code: 91, errmsg: "Replication is being shut down" };
    await configure({ times: 1 }, { failCommands: ["ping", "insert"], writeConcernError });
    expect(await ping()).toBe("ok");
    const error = await outcome(target.db.command({ insert: collection.collectionName, documents: [{ _id: 1 }] }));
    expect(error).toBeInstanceOf(MongoWriteConcernError);
    const reply = (error as MongoWriteConcernError).result;
    expect(reply).toMatchObject({ ok: 1, n: 1, writeConcernError });
    // Not a retryable write (no txnNumber through runCommand): no RetryableWriteError label from the server.
    expect(reply["errorLabels"]).toBeUndefined();
    expect(await collection.countDocuments()).toBe(1);
    expect(await target.db.command({ insert: collection.collectionName, documents: [{ _id: 2 }] })).not.toHaveProperty("writeConcernError");
  });

  it("adds its writeConcernError to a transaction's statement, labelled neither retryable nor transient", async () => {
    const collection = numbered(target);
    const writeConcernError = { code: 91, codeName: "ShutdownInProgress", errmsg: "Replication is being shut down" };
    await configure({ times: 1 }, { failCommands: ["insert"], writeConcernError });
    const [statement, commit] = await target.client.withSession(async (session) => {
      session.startTransaction();
      const inserted = await outcome(collection.insertOne({ _id: 1 }, { session }));
      return [inserted, await outcome(session.commitTransaction())];
    });
    // As the transactions spec suite's error-labels tests expect of mongod.
    expect(statement).toBeInstanceOf(MongoWriteConcernError);
    for (const label of ["RetryableWriteError", "TransientTransactionError", "UnknownTransactionCommitResult"])
      expect((statement as MongoWriteConcernError).hasErrorLabel(label)).toBe(false);
    expect(commit).toBe("ok");
    expect(await collection.countDocuments()).toBe(1);
  });

  it("labels a retryable write's retriable writeConcernError RetryableWriteError, which the driver retries once", async () => {
    const collection = numbered(target);
    await configure({ times: 1 }, { failCommands: ["insert"], writeConcernError: { code: 91, errmsg: "shutting down" } });
    await collection.insertOne({ _id: 1 });
    expect(await collection.find().toArray()).toEqual([{ _id: 1 }]);
  });

  it("fails only the connections of the application appName names", async () => {
    await configure("alwaysOn", { failCommands: ["ping"], errorCode: 2, appName: "storefront" });
    expect(await pingAs("storefront")).toBe("2");
    expect(await pingAs("back-office")).toBe("ok");
    expect(await ping()).toBe("ok");
  });

  it("fails only commands on the namespace it names", async () => {
    const named = numbered(target);
    const other = numbered(target);
    await configure("alwaysOn", { failCommands: ["find"], errorCode: 2, namespace: named.namespace });
    expect(await outcome(named.findOne({}))).toMatchObject({ code: 2 });
    expect(await outcome(other.findOne({}))).toBe("ok");
  });

  it("answers waitForFailPoint at once once the fail point was entered that many times", async () => {
    const { count } = await configure({ times: 1 }, { failCommands: ["ping"], errorCode: 2 });
    await ping();
    await expect(
      target.client.db("admin").command({ waitForFailPoint: "failCommand", timesEntered: count + 1, maxTimeMS: 10_000 }),
    ).resolves.toMatchObject({ ok: 1 });
  });

  it("is configured on the admin database only (13 Unauthorized elsewhere)", async () => {
    await expect(target.db.command({ configureFailPoint: "failCommand", mode: "off" })).rejects.toMatchObject({ code: 13 });
  });
});

describe("configureFailPoint on a server without test commands", () => {
  it("does not exist (59 CommandNotFound), as on a mongod started without enableTestCommands", async () => {
    const server = await startOfflineServer();
    const client = newClient(server.uri);
    try {
      await expect(
        client.db("admin").command({ configureFailPoint: "failCommand", mode: "alwaysOn", data: { failCommands: ["ping"], errorCode: 2 } }),
      ).rejects.toMatchObject({ code: 59, codeName: "CommandNotFound" });
      await expect(client.db("admin").command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe("fail points the drivers' spec suites use", () => {
  afterEach(async () => {
    for (const name of ["onPrimaryTransactionalWrite", "failGetMoreAfterCursorCheckout"])
      await target.client.db("admin").command({ configureFailPoint: name, mode: "off" });
  });

  it("answers an errorCode with mongod's codeName (11601 Interrupted)", async () => {
    await configure({ times: 1 }, { failCommands: ["ping"], errorCode: 11601 });
    expect(await ping()).toMatchObject({ code: 11601, codeName: "Interrupted" });
  });

  it.each([
    [246, "SnapshotUnavailable"],
    [267, "PreparedTransactionInProgress"],
  ])("names %d, a code the stand-in raises only through a fail point, as mongod does (%s)", async (errorCode, codeName) => {
    await configure({ times: 1 }, { failCommands: ["ping"], errorCode });
    expect(await ping()).toMatchObject({ code: errorCode, codeName });
  });

  it("onPrimaryTransactionalWrite closes a retryable write's connection after writing: the driver's retry writes nothing twice", async () => {
    const collection = numbered(target);
    await target.client.db("admin").command({ configureFailPoint: "onPrimaryTransactionalWrite", mode: { times: 1 } });
    await collection.insertOne({ _id: 1 });
    expect(await collection.find().toArray()).toEqual([{ _id: 1 }]);
  });

  it("onPrimaryTransactionalWrite with failBeforeCommitExceptionCode writes nothing, on each attempt it fires on", async () => {
    const collection = numbered(target);
    await target.client
      .db("admin")
      .command({ configureFailPoint: "onPrimaryTransactionalWrite", mode: { times: 2 }, data: { failBeforeCommitExceptionCode: 1 } });
    expect(await outcome(collection.insertOne({ _id: 1 }))).toBeInstanceOf(MongoNetworkError);
    expect(await collection.countDocuments()).toBe(0);
  });

  it("onPrimaryTransactionalWrite closing a bulk write's first insert twice: nothing written, the driver reports the id it queued", async () => {
    // The retryable-writes suite's "First insertOne is never committed". mongod closes the connection on each
    // attempt (closeConnection defaults to true), so the driver sees network errors and no reply: the ids of its
    // error's result are the ones it queued (Node's BulkWriteResult keeps them unless a writeError says otherwise).
    const collection = numbered(target);
    await collection.insertOne({ _id: 1 });
    await target.client
      .db("admin")
      .command({ configureFailPoint: "onPrimaryTransactionalWrite", mode: { times: 2 }, data: { failBeforeCommitExceptionCode: 1 } });
    const error = await outcome(
      collection.bulkWrite([{ insertOne: { document: { _id: 2 } } }, { deleteOne: { filter: { _id: 1 } } }], { ordered: true }),
    );
    expect(error).toBeInstanceOf(MongoBulkWriteError);
    const { result, errorResponse } = error as MongoBulkWriteError;
    expect(result).toMatchObject({ insertedCount: 0, deletedCount: 0, insertedIds: { 0: 2 } });
    expect(errorResponse).toMatchObject({ errmsg: expect.stringMatching(/closed/) as unknown });
    expect(await collection.find().toArray()).toEqual([{ _id: 1 }]);
  });

  it("failGetMoreAfterCursorCheckout fails a change stream's getMore, labelled resumable where mongod labels it so", async () => {
    const collection = numbered(target);
    const stream = collection.watch();
    expect(await stream.tryNext()).toBeNull();
    await target.client
      .db("admin")
      .command({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: { times: 1 }, data: { errorCode: 6 } });
    await collection.insertOne({ _id: 1 });
    // HostUnreachable is resumable: the driver resumes by itself and the event still arrives.
    expect(await stream.next()).toMatchObject({ documentKey: { _id: 1 } });
    await target.client
      .db("admin")
      .command({ configureFailPoint: "failGetMoreAfterCursorCheckout", mode: { times: 1 }, data: { errorCode: 11601 } });
    await collection.insertOne({ _id: 2 });
    expect(await outcome(stream.next())).toMatchObject({ code: 11601 });
    await stream.close();
  });
});

/** killAllSessions, which mongod's killSessions may answer with Interrupted when it kills its own operation (SERVER-38335). */
async function killAllSessions(): Promise<void> {
  await target.client
    .db("admin")
    .command({ killAllSessions: [] })
    .catch((error: unknown) => {
      if (!(error instanceof MongoServerError && error.code === 11601)) throw error;
    });
}

describe("killAllSessions and the fail point's blockConnection", () => {
  it("releases a transaction whose commit the fail point refused: the drop that waited for it goes through", async () => {
    // The transactions suite's pattern: failCommand answers the commit before the session is checked out, so the
    // transaction stays open (on mongod too) and the next test's majority drop of its collection waits for it.
    const collection = numbered(target);
    await collection.insertOne({ _id: 1 });
    const session = target.client.startSession();
    try {
      session.startTransaction();
      await collection.insertOne({ _id: 2 }, { session });
      await configure({ times: 1 }, { failCommands: ["commitTransaction"], errorCode: 251 });
      expect(await outcome(session.commitTransaction())).toMatchObject({ code: 251 });
      const waited = outcome(collection.drop({ writeConcern: { w: "majority" }, maxTimeMS: 500 }));
      expect(await waited).toMatchObject({ code: 50 });
      await killAllSessions();
      expect(await collection.drop({ writeConcern: { w: "majority" }, maxTimeMS: 5000 })).toBe(true);
    } finally {
      await session.endSession();
    }
  });

  it("interrupts at once (11601) a command the fail point holds, as mongod's killSessions interrupts its sleep", async () => {
    const collection = numbered(target);
    await configure({ times: 1 }, { failCommands: ["find"], blockConnection: true, blockTimeMS: 20_000 });
    const started = Date.now();
    const blocked = outcome(collection.findOne({}));
    // The find reaches the server and blocks; the kill comes from another connection of the pool.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await killAllSessions();
    expect(await blocked).toMatchObject({ code: 11601, codeName: "Interrupted" });
    expect(Date.now() - started).toBeLessThan(5000);
    // The connection answers again, and the fail point (fired once) is spent.
    expect(await collection.findOne({})).toBeNull();
  });
});
