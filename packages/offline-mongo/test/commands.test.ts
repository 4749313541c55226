import { BSON, Int32, Long } from "mongodb";
import { uniqueDbName, useTestDatabase } from "./connect";

const target = useTestDatabase("commands");

test("answers hello as a writable standalone primary", async () => {
  const hello = await target.db.admin().command({ hello: 1 });
  expect(hello).toMatchObject({
    isWritablePrimary: true,
    maxBsonObjectSize: 16777216,
    maxMessageSizeBytes: 48000000,
    maxWriteBatchSize: 100000,
    logicalSessionTimeoutMinutes: 30,
    readOnly: false,
    ok: 1,
  });
  expect(hello["localTime"]).toBeInstanceOf(Date);
  expect(hello["maxWireVersion"]).toBeGreaterThanOrEqual(21);
  expect(hello).not.toHaveProperty("setName");
});

test("answers ping", async () => {
  expect(await target.db.admin().ping()).toMatchObject({ ok: 1 });
});

test("reports its version through buildInfo", async () => {
  const info = await target.db.admin().buildInfo();
  expect(typeof info["version"]).toBe("string");
  expect(info["versionArray"]).toHaveLength(4);
  expect(info["maxBsonObjectSize"]).toBe(16777216);
});

test("answers an unknown command with CommandNotFound (59)", async () => {
  await expect(target.db.command({ frobnicate: 1 })).rejects.toMatchObject({
    code: 59,
    codeName: "CommandNotFound",
    message: "no such command: 'frobnicate'",
  });
});

test("refuses a command carrying a transaction number with IllegalOperation (20) like a standalone mongod", async () => {
  await expect(target.db.command({ find: "txn", filter: {}, txnNumber: Long.fromNumber(1) })).rejects.toMatchObject({
    code: 20,
    codeName: "IllegalOperation",
    message: "Transaction numbers are only allowed on a replica set member or mongos",
  });
});

test("fails a write inside a driver transaction instead of running it outside one", async () => {
  const session = target.client.startSession();
  try {
    session.startTransaction();
    await expect(target.db.collection("txn").insertOne({ a: 1 }, { session })).rejects.toThrow();
  } finally {
    await session.endSession();
  }
  expect(await target.db.collection("txn").countDocuments()).toBe(0);
});

test("creates a collection explicitly", async () => {
  await target.db.createCollection("explicit");
  const listed = await target.db.listCollections({ name: "explicit" }, { nameOnly: true }).toArray();
  expect(listed).toEqual([{ name: "explicit", type: "collection" }]);
});

// mongod 7.0 on (SERVER-60064): creating a collection again with identical options is a no-op.
test("creates an existing collection again with the same options without error or change", async () => {
  await target.db.createCollection("created_twice");
  await target.db.collection("created_twice").insertOne({ kept: true });
  await target.db.createCollection("created_twice");
  expect(await target.db.collection("created_twice").countDocuments({ kept: true })).toBe(1);
});

test("lists collections with names only and filtered by name", async () => {
  await target.db.collection("listed_a").insertOne({});
  await target.db.collection("listed_b").insertOne({});
  const names = await target.db.listCollections({ name: "listed_a" }, { nameOnly: true }).toArray();
  expect(names).toEqual([{ name: "listed_a", type: "collection" }]);
  const full = await target.db.listCollections({ name: "listed_b" }).toArray();
  expect(full[0]).toMatchObject({ name: "listed_b", type: "collection", idIndex: { key: { _id: 1 }, name: "_id_" } });
});

test("drops a collection", async () => {
  await target.db.collection("to_drop").insertOne({});
  expect(await target.db.collection("to_drop").drop()).toBe(true);
  expect(await target.db.listCollections({ name: "to_drop" }).toArray()).toEqual([]);
});

test("lists a database once it holds a collection, and no longer after dropDatabase", async () => {
  const other = target.client.db(uniqueDbName("commands_other"));
  await other.collection("x").insertOne({});
  const listed = await target.db.admin().listDatabases({ nameOnly: true });
  expect(listed.databases.map((d) => d.name)).toContain(other.databaseName);
  await other.dropDatabase();
  const after = await target.db.admin().listDatabases({ nameOnly: true });
  expect(after.databases.map((d) => d.name)).not.toContain(other.databaseName);
});

test("rejects an insert larger than 16 MiB with BSONObjectTooLarge (10334)", async () => {
  const padding = 16 * 1024 * 1024 - 100;
  const doc = { a: "x".repeat(padding), b: "y".repeat(200) };
  expect(BSON.calculateObjectSize(doc)).toBeGreaterThan(16 * 1024 * 1024);
  await expect(target.db.collection("big").insertOne(doc)).rejects.toMatchObject({ code: 10334 });
});

test("accepts read and write concerns a standalone satisfies", async () => {
  const coll = target.db.collection("concerns", { readConcern: { level: "majority" }, writeConcern: { w: "majority", j: true } });
  await coll.insertOne({ n: new Int32(1) });
  expect(await coll.countDocuments({ n: 1 })).toBe(1);
});

test("applies an unacknowledged (w: 0) write sent without a reply", async () => {
  const coll = target.db.collection("unacknowledged", { writeConcern: { w: 0 } });
  await coll.insertOne({ fireAndForget: true });
  expect(await target.db.collection("unacknowledged").countDocuments({ fireAndForget: true })).toBe(1);
});
