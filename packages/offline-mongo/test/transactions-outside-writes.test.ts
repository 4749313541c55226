import { setTimeout as sleep } from "node:timers/promises";
import { MongoBulkWriteError, MongoServerError, type Collection } from "mongodb";
import { useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("outside_writes", { offlineServer: { replicaSet: "rs0" } });

interface Tallied {
  _id: number;
  /** Increments by the transaction. */
  inside?: number;
  /** Increments by the write outside it. */
  outside?: number;
}

type OutsideWrite = (collection: Collection<Tallied>) => Promise<unknown>;

const OUTSIDE_WRITES: Record<string, OutsideWrite> = {
  updateOne: (collection) => collection.updateOne({ _id: 1 }, { $inc: { outside: 1 } }),
  findOneAndUpdate: (collection) => collection.findOneAndUpdate({ _id: 1 }, { $inc: { outside: 1 } }),
};

const variants = (["updateOne", "findOneAndUpdate"] as const).flatMap((write) =>
  (["commits", "aborts"] as const).flatMap((end) => [0, 10, 100, 900].map((delayMs) => ({ write, end, delayMs }))),
);

/*
 * The lost update of issue 28: a transaction writes a document, a plain write of the same document
 * is sent (and must wait), the transaction writes it again and ends. The variants run one after the
 * other on one client, so the driver hands the plain writes pooled sessions that earlier ones used,
 * as an application's writes get them.
 */
describe("a write outside a transaction to a document the transaction wrote", () => {
  it.each(variants)(
    "waits, then is in the final document: $write, the transaction $end, $delayMs ms between steps",
    async ({ write, end, delayMs }) => {
      const collection = target.db.collection<Tallied>(target.freshCollection().collectionName);
      await collection.insertOne({ _id: 1 });
      const session = target.client.startSession();
      session.startTransaction();
      await collection.updateOne({ _id: 1 }, { $inc: { inside: 1 } }, { session });
      await sleep(delayMs);
      let settled = false;
      const outside = OUTSIDE_WRITES[write]?.(collection).finally(() => (settled = true));
      await sleep(delayMs);
      await collection.updateOne({ _id: 1 }, { $inc: { inside: 1 } }, { session });
      await sleep(delayMs);
      expect(settled).toBe(false);
      await (end === "commits" ? session.commitTransaction() : session.abortTransaction());
      await outside;
      await session.endSession();
      expect(await collection.findOne({ _id: 1 })).toEqual(end === "commits" ? { _id: 1, inside: 2, outside: 1 } : { _id: 1, outside: 1 });
    },
  );
});

/** A promise's outcome, and whether it has come yet. */
function watch<T>(promise: Promise<T>): { readonly settled: boolean; readonly outcome: Promise<T> } {
  const watched = { settled: false, outcome: promise.finally(() => (watched.settled = true)) };
  return watched;
}

async function heldByTransaction(collection: Collection<Tallied>, id: number) {
  const session = target.client.startSession();
  session.startTransaction();
  await collection.updateOne({ _id: id }, { $inc: { inside: 1 } }, { session });
  return session;
}

describe("a write of several documents outside a transaction", () => {
  it("waits for the transaction holding one of them, then writes every match, the held one on top of the commit", async () => {
    const collection = target.db.collection<Tallied>(target.freshCollection().collectionName);
    await collection.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    const session = await heldByTransaction(collection, 2);
    const outside = watch(collection.updateMany({}, { $inc: { outside: 1 } }));
    await sleep(200);
    expect(outside.settled).toBe(false);
    await session.commitTransaction();
    expect((await outside.outcome).modifiedCount).toBe(3);
    await session.endSession();
    expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, outside: 1 },
      { _id: 2, inside: 1, outside: 1 },
      { _id: 3, outside: 1 },
    ]);
  });

  it.each([
    { end: "commits", inserted: [1, 2], duplicate: true },
    { end: "aborts", inserted: [2, 3], duplicate: false },
  ])(
    "waits for a transaction that inserted one of its unique keys, then finds the key taken only if the transaction $end",
    async ({ end, inserted, duplicate }) => {
      const collection = target.db.collection<Tallied & { key?: string }>(target.freshCollection().collectionName);
      await collection.createIndex({ key: 1 }, { unique: true });
      const session = target.client.startSession();
      session.startTransaction();
      await collection.insertOne({ _id: 1, key: "taken" }, { session });
      const outside = watch(
        collection.insertMany(
          [
            { _id: 2, key: "free" },
            { _id: 3, key: "taken" },
          ],
          { ordered: true },
        ),
      );
      await sleep(200);
      expect(outside.settled).toBe(false);
      await (end === "commits" ? session.commitTransaction() : session.abortTransaction());
      const outcome = await outside.outcome.then(
        () => undefined,
        (error: unknown) => error,
      );
      await session.endSession();
      expect(outcome instanceof MongoBulkWriteError && outcome.code === 11000).toBe(duplicate);
      expect((await collection.find().sort({ _id: 1 }).toArray()).map((doc) => doc._id)).toEqual(inserted);
    },
  );
});

describe("a write outside a transaction with a time limit", () => {
  it("fails with MaxTimeMSExpired when the transaction holding its document outlasts the limit, and changes nothing", async () => {
    const collection = target.db.collection<Tallied>(target.freshCollection().collectionName);
    await collection.insertOne({ _id: 1 });
    const session = await heldByTransaction(collection, 1);
    const expired = await collection.updateOne({ _id: 1 }, { $inc: { outside: 1 } }, { maxTimeMS: 300 }).catch((error: unknown) => error);
    expect(expired).toBeInstanceOf(MongoServerError);
    expect(expired).toMatchObject({ code: 50, codeName: "MaxTimeMSExpired" });
    await session.commitTransaction();
    await session.endSession();
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, inside: 1 });
  });
});
