import { useTestDatabase } from "./connect";

// The stand-in's own meter of records visited: no other server has it, so this file always starts one.
const target = useTestDatabase("transaction_costs", { alwaysOffline: true, offlineServer: { replicaSet: "rs0" } });

const DOCUMENTS = 100_000;
/** Records a statement of a few documents may visit: the documents, their neighbours in a plan, a few lookups by id. */
const A_HANDFUL = 50;

describe("a transaction over a collection of 100,000 documents", () => {
  it("visits only the records it reads and writes, never a copy of the collection, while a scan in it visits them all", async () => {
    const collection = target.db.collection<{ _id: number; n: number }>("big");
    await collection.insertMany(Array.from({ length: DOCUMENTS }, (_, i) => ({ _id: i, n: 0 })));

    const before = target.offline.recordsVisited();
    await target.client.withSession((session) =>
      session.withTransaction(async () => {
        await collection.updateOne({ _id: 50_000 }, { $inc: { n: 1 } }, { session });
        expect((await collection.findOne({ _id: 50_000 }, { session }))?.n).toBe(1);
      }),
    );
    expect(target.offline.recordsVisited() - before).toBeLessThan(A_HANDFUL);
    expect((await collection.findOne({ _id: 50_000 }))?.n).toBe(1);

    const beforeScan = target.offline.recordsVisited();
    await target.client.withSession((session) =>
      session.withTransaction(async () => void (await collection.find({ n: 2 }, { session }).toArray())),
    );
    expect(target.offline.recordsVisited() - beforeScan).toBeGreaterThanOrEqual(DOCUMENTS);
  });
});
