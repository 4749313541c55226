import type { ClientSession, Collection } from "mongodb";
import { serverError, useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("unique_key_locks", { offlineServer: { replicaSet: "rs0" } });

interface Account {
  _id: number;
  email: string;
  note?: string;
}

/** A fresh collection with a unique index on `email`, holding account 1 (a@example.com) and account 2 (b@example.com). */
async function accounts(): Promise<Collection<Account>> {
  const collection = target.db.collection<Account>(target.freshCollection().collectionName);
  await collection.createIndex({ email: 1 }, { unique: true });
  await collection.insertMany([
    { _id: 1, email: "a@example.com" },
    { _id: 2, email: "b@example.com" },
  ]);
  return collection;
}

/** A transaction left open after it changed account 1's note, not its email. */
async function noteChangedInTransaction(collection: Collection<Account>): Promise<ClientSession> {
  const session = target.client.startSession();
  session.startTransaction();
  await collection.updateOne({ _id: 1 }, { $set: { note: "vip" } }, { session });
  return session;
}

describe("a transaction that changes a document but not its unique key", () => {
  it("leaves the key to the index: an outside insert of it fails at once with E11000 instead of waiting", async () => {
    const collection = await accounts();
    const session = await noteChangedInTransaction(collection);
    // Were the key held, the insert would wait for the transaction and fail with 50 once its time ran out.
    const error = await serverError(collection.insertOne({ _id: 3, email: "a@example.com" }, { maxTimeMS: 1000 }));
    expect(error.code).toBe(11000);
    await session.commitTransaction();
    await session.endSession();
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, email: "a@example.com", note: "vip" });
  });

  it("leaves another transaction taking the key a duplicate key error, not a write conflict", async () => {
    const collection = await accounts();
    const holder = await noteChangedInTransaction(collection);
    const other = target.client.startSession();
    other.startTransaction();
    const error = await serverError(collection.updateOne({ _id: 2 }, { $set: { email: "a@example.com" } }, { session: other }));
    expect(error.code).toBe(11000);
    await other.endSession();
    await holder.commitTransaction();
    await holder.endSession();
    expect(await collection.findOne({ _id: 2 })).toEqual({ _id: 2, email: "b@example.com" });
  });
});
