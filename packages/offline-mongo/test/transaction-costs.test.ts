import type { MongoClient } from "mongodb";
import { startOfflineServer, type RunningOfflineServer } from "../src";
import { newClient } from "./connect";

// The stand-in's own meter of records visited: no other server has it, so this file always starts one.
let server: RunningOfflineServer;
let client: MongoClient;

beforeAll(async () => {
  server = await startOfflineServer({ replicaSet: "rs0" });
  client = newClient(server.uri, { discover: true });
});

afterAll(async () => {
  await client.close();
  await server.stop();
});

const DOCUMENTS = 100_000;
/** Records a statement of a few documents may visit: the documents, their neighbours in a plan, a few lookups by id. */
const A_HANDFUL = 50;

describe("a transaction over a collection of 100,000 documents", () => {
  it("visits only the records it reads and writes, never a copy of the collection, while a scan in it visits them all", async () => {
    const collection = client.db("costs").collection<{ _id: number; n: number }>("big");
    await collection.insertMany(Array.from({ length: DOCUMENTS }, (_, i) => ({ _id: i, n: 0 })));

    const before = server.recordsVisited();
    await client.withSession((session) =>
      session.withTransaction(async () => {
        await collection.updateOne({ _id: 50_000 }, { $inc: { n: 1 } }, { session });
        expect((await collection.findOne({ _id: 50_000 }, { session }))?.n).toBe(1);
      }),
    );
    expect(server.recordsVisited() - before).toBeLessThan(A_HANDFUL);
    expect((await collection.findOne({ _id: 50_000 }))?.n).toBe(1);

    const beforeScan = server.recordsVisited();
    await client.withSession((session) =>
      session.withTransaction(async () => void (await collection.find({ n: 2 }, { session }).toArray())),
    );
    expect(server.recordsVisited() - beforeScan).toBeGreaterThanOrEqual(DOCUMENTS);
  });
});
