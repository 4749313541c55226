import { setTimeout as sleep } from "node:timers/promises";
import { type ClientSession, type TransactionOptions } from "mongodb";
import { serverError, useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("transaction_catalog", { offlineServer: { replicaSet: "rs0" } });

function startTransaction(options: TransactionOptions = {}): ClientSession {
  const session = target.client.startSession();
  session.startTransaction(options);
  return session;
}

async function collectionNames(): Promise<string[]> {
  return (await target.db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name);
}

/** What these tests store. */
interface Item {
  _id: number | string;
  sku?: string;
  n?: number;
}

/** A collection no other test uses, typed for what these tests store. */
const fresh = (prefix: string) => target.db.collection<Item>(target.freshCollection(prefix).collectionName);
const named = (name: string) => target.db.collection<Item>(name);

const indexNames = async (name: string) => (await named(name).indexes()).map((index) => index.name);

describe("a transaction creating collections and indexes", () => {
  it("creates a collection with an index that no one sees until it commits, then everyone does", async () => {
    const name = target.freshCollection("created").collectionName;
    const session = startTransaction();
    await target.db.createCollection(name, { session });
    const collection = named(name);
    expect(await collection.createIndex({ sku: 1 }, { unique: true, session })).toBe("sku_1");
    await collection.insertOne({ _id: 1, sku: "a" }, { session });
    expect(await collectionNames()).not.toContain(name);
    await session.commitTransaction();
    await session.endSession();
    expect(await indexNames(name)).toEqual(["_id_", "sku_1"]);
    expect((await serverError(collection.insertOne({ _id: 2, sku: "a" }))).code).toBe(11000);
  });

  it("leaves neither the collection nor its index behind when it aborts", async () => {
    const name = target.freshCollection("aborted").collectionName;
    const session = startTransaction();
    await named(name).createIndex({ sku: 1 }, { session });
    await named(name).insertOne({ _id: 1, sku: "a" }, { session });
    await session.abortTransaction();
    await session.endSession();
    expect(await collectionNames()).not.toContain(name);
  });

  it("refuses a new index on a collection that existed before it (263), yet accepts one the collection has", async () => {
    const collection = fresh("existing");
    await collection.createIndex({ sku: 1 });
    const session = startTransaction();
    expect(await collection.createIndex({ sku: 1 }, { session })).toBe("sku_1");
    const refused = await serverError(collection.createIndex({ price: 1 }, { session }));
    expect(refused).toMatchObject({ code: 263, codeName: "OperationNotSupportedInTransaction" });
    expect((await serverError(session.commitTransaction())).code).toBe(251);
    await session.endSession();
    expect(await indexNames(collection.collectionName)).toEqual(["_id_", "sku_1"]);
  });

  it("refuses an index on a collection it created once it has written to it (263)", async () => {
    const name = target.freshCollection("written").collectionName;
    const session = startTransaction();
    await target.db.createCollection(name, { session });
    await named(name).insertOne({ _id: 1, sku: "a" }, { session });
    expect((await serverError(named(name).createIndex({ sku: 1 }, { session }))).code).toBe(263);
    await session.endSession();
    expect(await collectionNames()).not.toContain(name);
  });

  it("refuses to create a collection that exists (48) and ends", async () => {
    const collection = fresh("taken");
    await collection.insertOne({ _id: 1 });
    const session = startTransaction();
    expect((await serverError(target.db.createCollection(collection.collectionName, { session }))).code).toBe(48);
    expect((await serverError(session.commitTransaction())).code).toBe(251);
    await session.endSession();
  });

  it("refuses create and createIndexes at read concern snapshot (72), as only 'local' allows them", async () => {
    for (const create of [
      (session: ClientSession) => target.db.createCollection(target.freshCollection("snapshot").collectionName, { session }),
      (session: ClientSession) => fresh("snapshot").createIndex({ sku: 1 }, { session }),
    ]) {
      const session = startTransaction({ readConcern: { level: "snapshot" } });
      expect((await serverError(create(session))).code).toBe(72);
      await session.endSession();
    }
  });

  it("fails its commit with a transient WriteConflict when the collection it created was created outside meanwhile", async () => {
    const name = target.freshCollection("raced").collectionName;
    const session = startTransaction();
    await named(name).insertOne({ _id: "inside" }, { session });
    await named(name).insertOne({ _id: "outside" });
    const conflict = await serverError(session.commitTransaction());
    expect(conflict.code).toBe(112);
    expect(conflict.hasErrorLabel("TransientTransactionError")).toBe(true);
    await session.endSession();
    expect(await named(name).find().toArray()).toEqual([{ _id: "outside" }]);
  });
});

describe("a change to the catalog outside transactions", () => {
  it("waits to drop a collection a transaction has written in, then drops what it committed", async () => {
    const collection = fresh("dropped");
    await collection.insertOne({ _id: 1 });
    const session = startTransaction();
    await collection.insertOne({ _id: 2 }, { session });
    let dropped = false;
    const drop = collection.drop().then(() => (dropped = true));
    await sleep(200);
    expect(dropped).toBe(false);
    await session.commitTransaction();
    await drop;
    await session.endSession();
    expect(await collectionNames()).not.toContain(collection.collectionName);
  });

  it("makes a transaction writing in a collection dropped after its snapshot fail with a transient WriteConflict", async () => {
    const collection = fresh("gone");
    const other = fresh("other");
    await Promise.all([collection.insertOne({ _id: 1 }), other.insertOne({ _id: 1 })]);
    // As mongod's own test of it (jstests/core/txns/concurrent_drops_and_creates.js), at read concern snapshot.
    const session = startTransaction({ readConcern: { level: "snapshot" } });
    await other.findOne({}, { session });
    await collection.drop();
    expect(await collection.findOne({ _id: 1 }, { session })).toEqual({ _id: 1 });
    const conflict = await serverError(collection.updateOne({ _id: 1 }, { $set: { n: 1 } }, { upsert: true, session }));
    expect(conflict.code).toBe(112);
    await session.endSession();
    expect(await collectionNames()).not.toContain(collection.collectionName);
  });
});
