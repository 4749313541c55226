import { MongoServerError, MongoWriteConcernError, type Collection } from "mongodb";
import { useTestDatabase, type TestDatabase } from "./connect";

/** A fresh collection of documents numbered by `_id`. */
function numbered(database: TestDatabase): Collection<{ _id: number; n?: number }> {
  return database.db.collection(database.freshCollection().collectionName);
}

// A one-member replica set (MONGODB_REPLICA_SET_URI when set) and a standalone (MONGODB_URI when set).
const replicaSet = useTestDatabase("write_concern_rs", { offlineServer: { replicaSet: "rs0" } });
const standalone = useTestDatabase("write_concern_standalone");

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error("expected the command to fail");
  return error;
}

describe("on a one-member replica set, a write concern it cannot satisfy", () => {
  it.each([2, 10])("w: %i is reported as 100 UnsatisfiableWriteConcern after the write, which stands", async (w) => {
    const collection = numbered(replicaSet);
    const error = await failure(collection.insertOne({ _id: 1 }, { writeConcern: { w } }));
    expect(error).toBeInstanceOf(MongoWriteConcernError);
    expect((error as MongoWriteConcernError).result).toMatchObject({
      ok: 1,
      n: 1,
      writeConcernError: {
        code: 100,
        codeName: "UnsatisfiableWriteConcern",
        errmsg: "Not enough data-bearing nodes",
        errInfo: { writeConcern: { w, wtimeout: 0, provenance: "clientSupplied" } },
      },
    });
    expect(await collection.find().toArray()).toEqual([{ _id: 1 }]);
  });

  it("an unknown tag is reported as 79 UnknownReplWriteConcern after an update, which stands", async () => {
    const collection = numbered(replicaSet);
    await collection.insertOne({ _id: 1, n: 0 });
    // The driver's types know numbers and "majority" only: a tag goes through a command of its own.
    const update = { update: collection.collectionName, updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] };
    const error = await failure(replicaSet.db.command({ ...update, writeConcern: { w: "eastCoast" } }));
    expect(error).toBeInstanceOf(MongoWriteConcernError);
    expect((error as MongoWriteConcernError).result["writeConcernError"]).toMatchObject({
      code: 79,
      codeName: "UnknownReplWriteConcern",
      errmsg: "No write concern mode named 'eastCoast' found in replica set configuration",
    });
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, n: 1 });
  });

  it("at commitTransaction is reported there, and the transaction is committed", async () => {
    const collection = numbered(replicaSet);
    await collection.insertOne({ _id: 0 });
    const session = replicaSet.client.startSession();
    try {
      session.startTransaction({ writeConcern: { w: 3 } });
      await collection.insertOne({ _id: 1 }, { session });
      const error = await failure(session.commitTransaction());
      expect(error).toBeInstanceOf(MongoWriteConcernError);
      expect(error).toMatchObject({ code: 100 });
      expect((error as MongoWriteConcernError).errorLabels).not.toContain("UnknownTransactionCommitResult");
    } finally {
      await session.endSession();
    }
    expect(await collection.countDocuments()).toBe(2);
  });

  it("w: majority and w: 1 are satisfied without a writeConcernError", async () => {
    const collection = numbered(replicaSet);
    await collection.insertOne({ _id: 1 }, { writeConcern: { w: "majority" } });
    await collection.insertOne({ _id: 2 }, { writeConcern: { w: 1 } });
    expect(await collection.countDocuments()).toBe(2);
  });

  it("w beyond 50 is refused before the write as 9 FailedToParse", async () => {
    const collection = numbered(replicaSet);
    const error = await failure(collection.insertOne({ _id: 1 }, { writeConcern: { w: 51 } }));
    expect(error).toMatchObject({ code: 9, message: "w has to be a non-negative number and not greater than 50; found: 51" });
    expect(await collection.countDocuments()).toBe(0);
  });
});

describe("on a standalone, a write concern only replication could satisfy", () => {
  it("w: 2 is refused before the write as 2 BadValue", async () => {
    const collection = numbered(standalone);
    const error = await failure(collection.insertOne({ _id: 1 }, { writeConcern: { w: 2 } }));
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 2, codeName: "BadValue", message: "cannot use 'w' > 1 when a host is not replicated" });
    expect(await collection.countDocuments()).toBe(0);
  });

  it("a tag is refused before the write as 2 BadValue", async () => {
    const collection = numbered(standalone);
    const insert = { insert: collection.collectionName, documents: [{ _id: 1 }] };
    const error = await failure(standalone.db.command({ ...insert, writeConcern: { w: "eastCoast" } }));
    expect(error).toMatchObject({
      code: 2,
      message: `cannot use non-majority 'w' mode "eastCoast" when a host is not a member of a replica set`,
    });
    expect(await collection.countDocuments()).toBe(0);
  });

  it("w: majority is accepted", async () => {
    const collection = numbered(standalone);
    await collection.insertOne({ _id: 1 }, { writeConcern: { w: "majority" } });
    expect(await collection.countDocuments()).toBe(1);
  });
});
