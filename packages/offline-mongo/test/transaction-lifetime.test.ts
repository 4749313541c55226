import { MongoServerError } from "mongodb";
import { useTestDatabase } from "./connect";

// mongod's limit is a server parameter (transactionLifetimeLimitSeconds, 60 s); the stand-in takes it at start-up.
const LIFETIME_MS = 1000;
const target = useTestDatabase("lifetime", {
  alwaysOffline: true,
  offlineServer: { replicaSet: "rs0", transactionLifetimeMs: LIFETIME_MS },
});

describe("a transaction open past its lifetime limit", () => {
  it("is aborted by the server, which lets the write waiting for its document apply and refuses its commit", async () => {
    const collection = target.db.collection<{ _id: number; inside?: number; outside?: number }>("held");
    await collection.insertOne({ _id: 1 });
    // The limit runs from the transaction's first command, which comes after this.
    const before = Date.now();
    const session = target.client.startSession();
    session.startTransaction();
    await collection.updateOne({ _id: 1 }, { $inc: { inside: 1 } }, { session });
    await collection.updateOne({ _id: 1 }, { $inc: { outside: 1 } });
    // Less a few milliseconds: the timer's clock and Date.now() round apart.
    expect(Date.now() - before).toBeGreaterThanOrEqual(LIFETIME_MS - 5);
    const refused = await session.commitTransaction().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MongoServerError);
    expect(refused).toMatchObject({ code: 251, codeName: "NoSuchTransaction" });
    await session.endSession();
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, outside: 1 });
  });
});
