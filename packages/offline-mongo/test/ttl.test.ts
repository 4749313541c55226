import type { Collection } from "mongodb";
import { useTestDatabase } from "./connect";

// mongod's TTL monitor runs every 60 s, which no test should wait for; the offline server's interval
// can be shortened, so this file always starts its own offline server and ignores MONGODB_URI.
// (Creating and listing TTL indexes is mongod's behaviour too and is tested in indexes.test.ts.)
const target = useTestDatabase("ttl", { alwaysOffline: true, offlineServer: { ttlMonitorIntervalMs: 20 } });

const HOUR = 3_600_000;

async function ttlCollection(expireAfterSeconds: number) {
  const collection = target.freshCollection("ttl");
  await collection.createIndex({ expires_at: 1 }, { expireAfterSeconds });
  return collection;
}

/** Waits until the monitor has removed a document known to be expired, which proves a sweep ran. */
async function waitForSweep(collection: Collection): Promise<void> {
  await collection.insertOne({ _id: "sentinel" as never, expires_at: new Date(Date.now() - HOUR) });
  while (await collection.findOne({ _id: "sentinel" as never })) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function remainingIds(collection: Collection): Promise<unknown[]> {
  return (await collection.find({}, { sort: { _id: 1 } }).toArray()).map((doc) => doc._id);
}

test("deletes documents whose date lies expireAfterSeconds in the past and keeps the others", async () => {
  const collection = await ttlCollection(60);
  await collection.insertMany([
    { _id: "two minutes old" as never, expires_at: new Date(Date.now() - 120_000) },
    { _id: "ten seconds old" as never, expires_at: new Date(Date.now() - 10_000) },
    { _id: "in the future" as never, expires_at: new Date(Date.now() + HOUR) },
  ]);
  await waitForSweep(collection);
  expect(await remainingIds(collection)).toEqual(["in the future", "ten seconds old"]);
});

test("keeps documents whose indexed field is missing or not a date", async () => {
  const collection = await ttlCollection(0);
  await collection.insertMany([
    { _id: "missing" as never },
    { _id: "a string" as never, expires_at: "2000-01-01" },
    { _id: "a number" as never, expires_at: 0 },
  ]);
  await waitForSweep(collection);
  expect(await remainingIds(collection)).toEqual(["a number", "a string", "missing"]);
});

test("expires a document holding an array of dates by its earliest date", async () => {
  const collection = await ttlCollection(0);
  await collection.insertMany([
    { _id: "earliest past" as never, expires_at: [new Date(Date.now() + HOUR), new Date(Date.now() - HOUR)] },
    { _id: "all future" as never, expires_at: [new Date(Date.now() + HOUR), new Date(Date.now() + 2 * HOUR)] },
  ]);
  await waitForSweep(collection);
  expect(await remainingIds(collection)).toEqual(["all future"]);
});

test("leaves collections without a TTL index alone", async () => {
  const plain = target.freshCollection("plain");
  await plain.insertOne({ _id: "old" as never, expires_at: new Date(0) });
  await waitForSweep(await ttlCollection(0));
  expect(await remainingIds(plain)).toEqual(["old"]);
});
