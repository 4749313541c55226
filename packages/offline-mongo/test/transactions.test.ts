import { setTimeout as sleep } from "node:timers/promises";
import { Long, type ClientSession, type Collection } from "mongodb";
import { serverError, useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("transactions", { offlineServer: { replicaSet: "rs0" } });

/** Runs `work` in a transaction of its own session, leaving it open for the test to commit or abort. */
async function openTransaction(work: (session: ClientSession) => Promise<void>): Promise<ClientSession> {
  const session = target.client.startSession();
  session.startTransaction();
  await work(session);
  return session;
}

/** What these tests store: counters by number, and pages keyed by book and page number. */
interface Counter {
  _id: number;
  n?: number;
  book?: string;
  page?: number;
}

async function collectionWith(...documents: Counter[]): Promise<Collection<Counter>> {
  const collection = target.db.collection<Counter>(target.freshCollection().collectionName);
  if (documents.length > 0) await collection.insertMany(documents);
  return collection;
}

const counterOf = async (collection: Collection<Counter>, id: number) => (await collection.findOne({ _id: id }))?.n;

describe("a one-member replica set", () => {
  it("answers hello as its primary, so the driver discovers a replica set with transactions", async () => {
    const hello = await target.db.admin().command({ hello: 1 });
    expect(hello).toMatchObject({ isWritablePrimary: true, secondary: false });
    expect(typeof hello["setName"]).toBe("string");
    expect(hello["hosts"]).toContain(hello["primary"]);
    expect(hello["operationTime"]).toBeDefined();
  });
});

describe("a transaction", () => {
  it("shows its writes to nobody else until it commits, then all of them at once", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const session = await openTransaction(async (s) => {
      await collection.insertOne({ _id: 2, n: 0 }, { session: s });
      await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: s });
      expect(await collection.find({}, { session: s }).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, n: 1 },
        { _id: 2, n: 0 },
      ]);
    });
    expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 1, n: 0 }]);
    await session.commitTransaction();
    await session.endSession();
    expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, n: 1 },
      { _id: 2, n: 0 },
    ]);
  });

  it("leaves nothing behind when aborted", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const session = await openTransaction(async (s) => {
      await collection.insertOne({ _id: 2 }, { session: s });
      await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: s });
    });
    await session.abortTransaction();
    await session.endSession();
    expect(await collection.find().toArray()).toEqual([{ _id: 1, n: 0 }]);
  });

  it("reads the snapshot of its first command, not what others commit later", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const session = await openTransaction(async (s) => expect((await collection.findOne({ _id: 1 }, { session: s }))?.n).toBe(0));
    await collection.updateOne({ _id: 1 }, { $set: { n: 5 } });
    expect((await collection.findOne({ _id: 1 }, { session }))?.n).toBe(0);
    await session.commitTransaction();
    await session.endSession();
    expect(await counterOf(collection, 1)).toBe(5);
  });

  it("reads through an index its own writes and what was there at its start, not what others commit later", async () => {
    const collection = await collectionWith({ _id: 1, book: "b", page: 0 });
    await collection.createIndex({ book: 1, page: 1 });
    const session = await openTransaction(async (s) => {
      await collection.insertOne({ _id: 2, book: "b", page: 1 }, { session: s });
      await collection.updateOne({ _id: 1 }, { $set: { page: 5 } }, { session: s });
    });
    await collection.insertOne({ _id: 3, book: "b", page: 2 });
    const pages = async () =>
      (await collection.find({ book: "b" }, { session, hint: { book: 1, page: 1 } }).toArray()).map((doc) => [doc._id, doc.page]);
    expect(await pages()).toEqual([
      [2, 1],
      [1, 5],
    ]);
    await session.commitTransaction();
    await session.endSession();
    expect((await collection.find({ book: "b" }).sort({ page: 1 }).toArray()).map((doc) => doc._id)).toEqual([2, 3, 1]);
  });

  it("fails with a transient WriteConflict when it writes a document another open transaction has written, and is over", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const first = await openTransaction(async (s) => void (await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: s })));
    const second = target.client.startSession();
    second.startTransaction();
    const conflict = await serverError(collection.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session: second }));
    expect(conflict.code).toBe(112);
    expect(conflict.hasErrorLabel("TransientTransactionError")).toBe(true);
    expect((await serverError(second.commitTransaction())).code).toBe(251);
    await first.commitTransaction();
    await Promise.all([first.endSession(), second.endSession()]);
    expect(await counterOf(collection, 1)).toBe(1);
  });

  it("fails with a transient WriteConflict when it writes a document committed after its snapshot", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const session = await openTransaction(async (s) => void (await collection.findOne({ _id: 1 }, { session: s })));
    await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } });
    const conflict = await serverError(collection.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session }));
    expect(conflict.code).toBe(112);
    await session.endSession();
    expect(await counterOf(collection, 1)).toBe(1);
  });

  it("conflicts with another open transaction inserting the same unique key, whatever the documents' ids", async () => {
    const collection = await collectionWith();
    await collection.createIndex({ book: 1, page: 1 }, { unique: true });
    const first = await openTransaction(async (s) => void (await collection.insertOne({ _id: 1, book: "b", page: 0 }, { session: s })));
    const second = target.client.startSession();
    second.startTransaction();
    expect((await serverError(collection.insertOne({ _id: 2, book: "b", page: 0 }, { session: second }))).code).toBe(112);
    await first.commitTransaction();
    await Promise.all([first.endSession(), second.endSession()]);
    expect(await collection.countDocuments({ book: "b", page: 0 })).toBe(1);
  });

  it("answers a duplicate of a key in its snapshot with DuplicateKey, which ends it: nothing of it commits", async () => {
    const collection = await collectionWith({ _id: 1 });
    const session = await openTransaction(async (s) => void (await collection.insertOne({ _id: 2 }, { session: s })));
    const duplicate = await serverError(collection.insertOne({ _id: 1 }, { session }));
    expect(duplicate.code).toBe(11000);
    expect(duplicate.hasErrorLabel("TransientTransactionError")).toBe(false);
    expect((await serverError(session.commitTransaction())).code).toBe(251);
    await session.endSession();
    expect(await collection.find().toArray()).toEqual([{ _id: 1 }]);
  });

  it("makes a write outside transactions wait for the transaction holding its document, then applies it after the commit", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const session = await openTransaction(async (s) => void (await collection.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: s })));
    let applied = false;
    const outside = collection.updateOne({ _id: 1 }, { $inc: { n: 10 } }).then(() => (applied = true));
    await sleep(200);
    expect(applied).toBe(false);
    await session.commitTransaction();
    await outside;
    await session.endSession();
    expect(await counterOf(collection, 1)).toBe(11);
  });

  it("lets the driver's withTransaction retry conflicts until every racing increment has landed once", async () => {
    const collection = await collectionWith({ _id: 1, n: 0 });
    const RACERS = 8;
    await Promise.all(
      Array.from({ length: RACERS }, () =>
        target.client.withSession((session) =>
          session.withTransaction(async () => {
            const current = (await collection.findOne({ _id: 1 }, { session }))?.n ?? 0;
            await collection.updateOne({ _id: 1 }, { $set: { n: current + 1 } }, { session });
          }),
        ),
      ),
    );
    expect(await counterOf(collection, 1)).toBe(RACERS);
  });

  it("refuses a command mongod does not run in a transaction", async () => {
    const collection = await collectionWith({ _id: 1 });
    const session = await openTransaction(async (s) => void (await collection.findOne({}, { session: s })));
    expect((await serverError(target.db.command({ count: collection.collectionName }, { session }))).code).toBe(263);
    await session.endSession();
  });
});

describe("a retryable write", () => {
  it("is applied once when sent again with the same session and txnNumber, as a driver's retry is", async () => {
    const collection = await collectionWith();
    const session = target.client.startSession();
    // The driver pools server sessions, so this one may have numbered writes already: start far above them.
    const insert = { insert: collection.collectionName, documents: [{ _id: 1 }], txnNumber: Long.fromNumber(1_000_000) };
    const first = await target.db.command(insert, { session });
    const again = await target.db.command(insert, { session });
    expect(again).toMatchObject({ ok: 1, n: first["n"] });
    expect(await collection.countDocuments()).toBe(1);
    expect((await serverError(target.db.command({ ...insert, txnNumber: Long.fromNumber(999_999) }, { session }))).code).toBe(225);
    await session.endSession();
  });

  it("that waited for a transaction holding its document is applied once it ends, not answered with its session's previous write", async () => {
    // Taken first, so that it is the pooled session the test above numbered, and the writes below get fresh ones.
    const session = target.client.startSession();
    const collection = await collectionWith({ _id: 1, n: 0 }, { _id: 2, n: 0 });
    const increment = (id: number, txnNumber: number) =>
      target.db.command(
        { update: collection.collectionName, updates: [{ q: { _id: id }, u: { $inc: { n: 1 } } }], txnNumber: Long.fromNumber(txnNumber) },
        { session },
      );
    await increment(2, 2_000_000);
    const holder = await openTransaction((held) =>
      collection.updateOne({ _id: 1 }, { $set: { n: 100 } }, { session: held }).then(() => {}),
    );
    const waiting = increment(1, 2_000_001);
    await sleep(100);
    await holder.abortTransaction();
    await holder.endSession();

    expect(await waiting).toMatchObject({ ok: 1, n: 1, nModified: 1 });
    expect(await counterOf(collection, 1)).toBe(1);
    await session.endSession();
  });
});
