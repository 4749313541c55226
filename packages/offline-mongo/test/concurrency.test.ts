import { MongoServerError, type Db } from "mongodb";
import { newClient, untypedUpdate, useTestDatabase } from "./connect";

const target = useTestDatabase("concurrency");
const CLIENTS = 20;

async function withClients<T>(count: number, run: (clientDb: Db, index: number) => Promise<T>): Promise<T[]> {
  const clients = Array.from({ length: count }, () => newClient(target.uri));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    return await Promise.all(clients.map((c, i) => run(c.db(target.db.databaseName), i)));
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

test("keeps exactly one document per key and loses no push when many clients race upserts on a unique compound index", async () => {
  const pages = target.db.collection("pages");
  await pages.createIndex({ book_id: 1, page: 1 }, { unique: true });
  const PER_CLIENT = 10;
  const LIMIT = 50;
  await withClients(CLIENTS, async (clientDb, index) => {
    const coll = clientDb.collection("pages");
    for (let i = 0; i < PER_CLIENT; i++) {
      const buyer = `c${index}-${i}`;
      for (let page = 0; ; page++) {
        try {
          const result = await coll.updateOne(
            { book_id: "b1", page, count: { $lt: LIMIT } },
            untypedUpdate({ $push: { buyers: buyer }, $inc: { count: 1 } }),
            { upsert: true },
          );
          if (result.matchedCount + result.upsertedCount === 1) break;
        } catch (error) {
          // Another client created this page first, or it filled up: try the next page.
          if (!(error instanceof MongoServerError && error.code === 11000)) throw error;
        }
      }
    }
  });
  const all = await pages.find({ book_id: "b1" }).sort({ page: 1 }).toArray();
  expect(all.map((d) => d["page"])).toEqual([0, 1, 2, 3]);
  expect(all.map((d) => d["count"])).toEqual([50, 50, 50, 50]);
  const buyers = all.flatMap((d) => d["buyers"] as string[]);
  expect(new Set(buyers).size).toBe(CLIENTS * PER_CLIENT);
});

test("never exceeds a filter-guarded bound when many clients push to one document at once", async () => {
  const doc = target.db.collection("bounded");
  const { insertedId } = await doc.insertOne({ list: [] });
  const results = await withClients(CLIENTS, async (clientDb, index) => {
    const coll = clientDb.collection("bounded");
    let accepted = 0;
    for (let i = 0; i < 5; i++) {
      const update = untypedUpdate({ $push: { list: `${index}-${i}` } });
      const filter = { _id: insertedId, "list.49": { $exists: false } };
      const outcome =
        i % 2 === 0 ? (await coll.updateOne(filter, update)).modifiedCount : (await coll.findOneAndUpdate(filter, update)) ? 1 : 0;
      accepted += outcome;
    }
    return accepted;
  });
  const list = (await doc.findOne({ _id: insertedId }))?.["list"] as string[];
  expect(list).toHaveLength(50);
  expect(results.reduce((a, b) => a + b, 0)).toBe(50);
  expect(new Set(list).size).toBe(50);
});

test("keeps serving other clients when one disconnects in the middle of a cursor", async () => {
  const items = target.db.collection("cursor_drop");
  await items.insertMany(Array.from({ length: 300 }, (_, i) => ({ i })));
  const leaving = newClient(target.uri);
  const cursor = leaving.db(target.db.databaseName).collection("cursor_drop").find({}).batchSize(10);
  await cursor.next();
  await leaving.close(true);
  expect(await items.countDocuments()).toBe(300);
  expect(await items.find({}).batchSize(50).toArray()).toHaveLength(300);
});
