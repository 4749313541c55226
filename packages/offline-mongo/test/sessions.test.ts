import type { ClientSession, Collection } from "mongodb";
import { serverError, useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("sessions", { offlineServer: { replicaSet: "rs0" } });

interface Counter {
  _id: number;
  n: number;
}

async function counters(): Promise<Collection<Counter>> {
  const collection = target.db.collection<Counter>(target.freshCollection().collectionName);
  await collection.insertMany([
    { _id: 1, n: 0 },
    { _id: 2, n: 0 },
  ]);
  return collection;
}

/** A session whose open transaction has written (and so holds) the counter `id`. */
async function holding(collection: Collection<Counter>, id: number): Promise<ClientSession> {
  const session = target.client.startSession();
  session.startTransaction();
  await collection.updateOne({ _id: id }, { $inc: { n: 1 } }, { session });
  return session;
}

describe("ending sessions as mongod's test tools do", () => {
  it("killAllSessions aborts every open transaction and releases its documents", async () => {
    const collection = await counters();
    const [first, second] = [await holding(collection, 1), await holding(collection, 2)];
    await target.client.db("admin").command({ killAllSessions: [] });
    // Writes outside that would wait behind the transactions go through at once.
    await collection.updateMany({}, { $inc: { n: 10 } }, { maxTimeMS: 5000 });
    for (const session of [first, second]) {
      const error = await serverError(session.commitTransaction());
      expect(error.code).toBe(251);
      await session.endSession();
    }
    expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, n: 10 },
      { _id: 2, n: 10 },
    ]);
  });

  it("killSessions aborts only the listed sessions' transactions", async () => {
    const collection = await counters();
    const [killed, kept] = [await holding(collection, 1), await holding(collection, 2)];
    await target.client.db("admin").command({ killSessions: [killed.id] });
    await collection.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { maxTimeMS: 5000 });
    expect((await serverError(killed.commitTransaction())).code).toBe(251);
    await kept.commitTransaction();
    await Promise.all([killed.endSession(), kept.endSession()]);
    expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, n: 10 },
      { _id: 2, n: 1 },
    ]);
  });

  it("killAllSessions kills the sessions' cursors: their next getMore answers 43 CursorNotFound", async () => {
    const collection = await counters();
    const cursor = collection.find({}, { batchSize: 1 });
    expect(await cursor.next()).toEqual({ _id: 1, n: 0 });
    await target.client
      .db("admin")
      .command({ killAllSessions: [] })
      .catch((error: unknown) => {
        // mongod may interrupt the kill itself (SERVER-38335).
        if ((error as { code?: number }).code !== 11601) throw error;
      });
    expect((await serverError(cursor.next())).code).toBe(43);
    await cursor.close();
  });

  it("killAllSessions interrupts a change stream's getMore awaiting data (11601) instead of letting it wait out maxAwaitTimeMS", async () => {
    const collection = await counters();
    const stream = collection.watch([], { maxAwaitTimeMS: 20_000 });
    try {
      const started = Date.now();
      const waiting = stream.next().then(
        () => "an event",
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await target.client
        .db("admin")
        .command({ killAllSessions: [] })
        .catch((error: unknown) => {
          if ((error as { code?: number }).code !== 11601) throw error;
        });
      expect(await waiting).toMatchObject({ code: 11601 });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await stream.close();
    }
  });
});
