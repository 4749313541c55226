import { Timestamp, type Collection } from "mongodb";
import { serverError, useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("snapshot_reads", { offlineServer: { replicaSet: "rs0" } });

interface Book {
  _id: number;
  sold: number;
}

async function books(): Promise<Collection<Book>> {
  const collection = target.db.collection<Book>(target.freshCollection().collectionName);
  await collection.insertMany(
    [
      { _id: 1, sold: 0 },
      { _id: 2, sold: 0 },
    ],
    { writeConcern: { w: "majority" } },
  );
  return collection;
}

describe("snapshot reads outside transactions (readConcern snapshot)", () => {
  it("read on, in a snapshot session, at the time the first read answered, whatever was written since", async () => {
    const collection = await books();
    const session = target.client.startSession({ snapshot: true });
    try {
      expect(await collection.find({}, { session }).toArray()).toEqual([
        { _id: 1, sold: 0 },
        { _id: 2, sold: 0 },
      ]);
      await collection.updateOne({ _id: 1 }, { $set: { sold: 5 } });
      await collection.deleteOne({ _id: 2 });
      await collection.insertOne({ _id: 3, sold: 1 });
      expect(await collection.find({}, { session }).toArray()).toEqual([
        { _id: 1, sold: 0 },
        { _id: 2, sold: 0 },
      ]);
      expect(await collection.distinct("sold", {}, { session })).toEqual([0]);
      expect(await collection.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }], { session }).toArray()).toEqual([{ _id: null, n: 2 }]);
      // Outside the session the writes are there.
      expect(await collection.find().toArray()).toEqual([
        { _id: 1, sold: 5 },
        { _id: 3, sold: 1 },
      ]);
    } finally {
      await session.endSession();
    }
  });

  it("names the time it read at: the cursor's atClusterTime, distinct's own, never later than the reply's operationTime", async () => {
    const collection = await books();
    const find = await target.db.command({ find: collection.collectionName, readConcern: { level: "snapshot" } });
    const distinct = await target.db.command({ distinct: collection.collectionName, key: "sold", readConcern: { level: "snapshot" } });
    expect(find["cursor"]["atClusterTime"]._bsontype).toBe("Timestamp");
    expect(distinct["atClusterTime"]._bsontype).toBe("Timestamp");
    expect(find["cursor"]["atClusterTime"].lessThanOrEqual(find["operationTime"])).toBe(true);
  });

  it("refuses it on writes and listings with mongod's 72", async () => {
    const collection = await books();
    const insert = target.db.command({ insert: collection.collectionName, documents: [{ _id: 9 }], readConcern: { level: "snapshot" } });
    expect((await serverError(insert)).code).toBe(72);
    const listing = target.db.command({ listCollections: 1, readConcern: { level: "snapshot" } });
    expect((await serverError(listing)).code).toBe(72);
    expect(await collection.countDocuments({ _id: 9 })).toBe(0);
  });

  it("answers a time later than any it gave out with 72, and a time outside the five-minute window with 239 SnapshotTooOld", async () => {
    const collection = await books();
    const reply = await target.db.command({ find: collection.collectionName, readConcern: { level: "snapshot" } });
    const time = reply["cursor"]["atClusterTime"];
    const later = target.db.command({
      find: collection.collectionName,
      readConcern: { level: "snapshot", atClusterTime: new Timestamp({ t: time.high + 3600, i: 1 }) },
    });
    expect((await serverError(later)).code).toBe(72);
    await collection.insertOne({ _id: 7, sold: 0 });
    const old = target.db.command({
      find: collection.collectionName,
      readConcern: { level: "snapshot", atClusterTime: new Timestamp({ t: time.high - 3600, i: 1 }) },
    });
    expect((await serverError(old)).code).toBe(239);
  });
});

describe("linearizable reads on the set's only member", () => {
  it("read every write acknowledged before them, from find, aggregate and distinct", async () => {
    const collection = await books();
    await collection.updateOne({ _id: 2 }, { $set: { sold: 4 } });
    const linearizable = { readConcern: { level: "linearizable" as const } };
    expect(await collection.find({ _id: 2 }, linearizable).toArray()).toEqual([{ _id: 2, sold: 4 }]);
    expect(await collection.aggregate([{ $match: { sold: 4 } }], linearizable).toArray()).toEqual([{ _id: 2, sold: 4 }]);
    expect(await collection.distinct("sold", {}, linearizable)).toEqual([0, 4]);
  });
});
