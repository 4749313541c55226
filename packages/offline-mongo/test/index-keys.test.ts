import type { ClientSession, Collection } from "mongodb";
import type { IndexKeysWritten } from "../src";
import { useTestDatabase } from "./connect";

// The stand-in's own meter of index keys written: no other server has it, so this file always starts one.
const target = useTestDatabase("index_keys", { alwaysOffline: true, offlineServer: { replicaSet: "rs0" } });

interface Book {
  _id: number;
  tags: string[];
  count: number;
  isbn: string;
  note?: string;
}

/** A fresh collection holding book 1, with a multikey index on `tags`, one on `count` and a unique one on `isbn`. */
async function books(): Promise<Collection<Book>> {
  const collection = target.db.collection<Book>(target.freshCollection("books").collectionName);
  await collection.createIndexes([{ key: { tags: 1 } }, { key: { count: 1 } }, { key: { isbn: 1 }, unique: true }]);
  await collection.insertOne({ _id: 1, tags: ["a", "b"], count: 0, isbn: "978-1" });
  return collection;
}

/** The keys written while `work` runs. */
async function keysWrittenBy(work: () => Promise<unknown>): Promise<IndexKeysWritten> {
  const before = target.offline.indexKeysWritten();
  await work();
  const after = target.offline.indexKeysWritten();
  return { keysInserted: after.keysInserted - before.keysInserted, keysDeleted: after.keysDeleted - before.keysDeleted };
}

/** The ids of the books holding `tag`, read through the tags index (so its keys, not the documents, answer). */
async function taggedWith(collection: Collection<Book>, tag: string, session?: ClientSession): Promise<number[]> {
  const found = await collection.find({ tags: tag }, { hint: { tags: 1 }, ...(session ? { session } : {}) }).toArray();
  return found.map((book) => book._id);
}

/** Book 1's tags from a, b to b, c: key a goes, key c comes, key b stays. */
const retag = { $set: { tags: ["b", "c"] } };

/** Book 1 retagged in a transaction left open, and the keys that wrote. */
async function retaggedInTransaction(): Promise<{ collection: Collection<Book>; session: ClientSession; written: IndexKeysWritten }> {
  const collection = await books();
  const session = target.client.startSession();
  session.startTransaction();
  const written = await keysWrittenBy(() => collection.updateOne({ _id: 1 }, retag, { session }));
  return { collection, session, written };
}

describe("an update's index keys", () => {
  it("are none at all when it changes no indexed field, outside a transaction and in one", async () => {
    const collection = await books();
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, { $set: { note: "signed" } }))).toEqual({
      keysInserted: 0,
      keysDeleted: 0,
    });
    const inTransaction = keysWrittenBy(() =>
      target.client.withSession((session) =>
        session.withTransaction(() => collection.updateOne({ _id: 1 }, { $set: { note: "signed twice" } }, { session })),
      ),
    );
    expect(await inTransaction).toEqual({ keysInserted: 0, keysDeleted: 0 });
    expect((await collection.findOne({ isbn: "978-1" }, { hint: { isbn: 1 } }))?.note).toBe("signed twice");
  });

  it("are only the element removed and the one added when a multikey array changes", async () => {
    const collection = await books();
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, retag))).toEqual({ keysInserted: 1, keysDeleted: 1 });
    expect(await taggedWith(collection, "c")).toEqual([1]);
    expect(await taggedWith(collection, "b")).toEqual([1]);
    expect(await taggedWith(collection, "a")).toEqual([]);
  });

  it("change a multikey index in the transaction's snapshot only, until it commits", async () => {
    const { collection, session, written } = await retaggedInTransaction();
    expect(written).toEqual({ keysInserted: 1, keysDeleted: 1 });
    expect(await taggedWith(collection, "c", session)).toEqual([1]);
    expect(await taggedWith(collection, "a", session)).toEqual([]);
    expect(await taggedWith(collection, "a")).toEqual([1]);
    expect(await taggedWith(collection, "c")).toEqual([]);

    // The commit applies the same two keys to the committed data.
    expect(await keysWrittenBy(() => session.commitTransaction())).toEqual({ keysInserted: 1, keysDeleted: 1 });
    await session.endSession();
    expect(await taggedWith(collection, "c")).toEqual([1]);
    expect(await taggedWith(collection, "a")).toEqual([]);
  });

  it("vanish with the transaction that wrote them when it aborts", async () => {
    const { collection, session } = await retaggedInTransaction();
    expect(await taggedWith(collection, "c", session)).toEqual([1]);
    expect(await keysWrittenBy(() => session.abortTransaction())).toEqual({ keysInserted: 0, keysDeleted: 0 });
    await session.endSession();
    expect(await taggedWith(collection, "a")).toEqual([1]);
    expect(await taggedWith(collection, "c")).toEqual([]);
  });

  it("move a changed number's key: one deleted, one inserted, the other indexes untouched", async () => {
    const collection = await books();
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, { $inc: { count: 1 } }))).toEqual({
      keysInserted: 1,
      keysDeleted: 1,
    });
    expect((await collection.find({ count: 1 }, { hint: { count: 1 } }).toArray()).map((book) => book._id)).toEqual([1]);
    expect(await collection.countDocuments({ count: 0 }, { hint: { count: 1 } })).toBe(0);
  });

  // Appends are worked out from the appended values alone (a buyer pushed onto a page of 1,000): these pin that
  // shortcut to the keys a whole diff of both documents gives.
  it("are only the new strings' keys when strings are pushed, none for a string the array already holds", async () => {
    const collection = await books();
    await collection.createIndex({ tags: 1, count: 1 });
    // c and d are new to both multikey indexes; a is held already, and c comes twice.
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, { $push: { tags: { $each: ["c", "a", "c", "d"] } } }))).toEqual({
      keysInserted: 4,
      keysDeleted: 0,
    });
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, { $push: { tags: "b" } }))).toEqual({
      keysInserted: 0,
      keysDeleted: 0,
    });
    expect(await taggedWith(collection, "d")).toEqual([1]);
    const compound = await collection.find({ tags: "c", count: 0 }, { hint: { tags: 1, count: 1 } }).toArray();
    expect(compound.map((book) => book._id)).toEqual([1]);
    // Pulling an appended tag takes its keys out of both indexes again: they were stored as the diff would have stored them.
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, { $pull: { tags: "c" } }))).toEqual({
      keysInserted: 0,
      keysDeleted: 2,
    });
    expect(await taggedWith(collection, "c")).toEqual([]);
  });

  it("are the appended values' keys when a number joins the strings, as a whole diff gives them", async () => {
    const collection = target.db.collection<{ _id: number; tags: (string | number)[] }>(target.freshCollection("mixed").collectionName);
    await collection.createIndex({ tags: 1 });
    await collection.insertOne({ _id: 1, tags: ["a", 2] });
    expect(await keysWrittenBy(() => collection.updateOne({ _id: 1 }, { $push: { tags: { $each: [2, 3, "a"] } } }))).toEqual({
      keysInserted: 1,
      keysDeleted: 0,
    });
    expect((await collection.find({ tags: 3 }, { hint: { tags: 1 } }).toArray()).map((doc) => doc._id)).toEqual([1]);
  });

  it("refuse a pushed string another document holds under a unique multikey index with E11000 naming it, writing nothing", async () => {
    const collection = target.db.collection<{ _id: number; codes: string[] }>(target.freshCollection("codes").collectionName);
    await collection.createIndex({ codes: 1 }, { unique: true });
    await collection.insertMany([
      { _id: 1, codes: ["a"] },
      { _id: 2, codes: ["z"] },
    ]);
    let refused: unknown;
    const written = await keysWrittenBy(() =>
      collection.updateOne({ _id: 1 }, { $push: { codes: { $each: ["b", "z"] } } }).catch((error: unknown) => (refused = error)),
    );
    expect(refused).toMatchObject({ code: 11000, message: expect.stringContaining('dup key: { codes: "z" }') });
    expect(written).toEqual({ keysInserted: 0, keysDeleted: 0 });
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, codes: ["a"] });
    expect(await collection.countDocuments({ codes: "b" }, { hint: { codes: 1 } })).toBe(0);
  });
});
