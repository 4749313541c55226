import type { Collection } from "mongodb";
import { Long } from "mongodb";
import { untypedFilter, untypedUpdate, useTestDatabase } from "./connect";
import { stageNamed } from "./explain";

const target = useTestDatabase("indexes");

/** A fresh collection with a unique index on {book_id, page}. */
async function pagesCollection(): Promise<Collection> {
  const pages = target.freshCollection("p");
  await pages.createIndex({ book_id: 1, page: 1 }, { unique: true });
  return pages;
}

test("names an index like mongod and lists it with v, key, name and unique", async () => {
  const pages = await pagesCollection();
  expect(await pages.listIndexes().toArray()).toEqual([
    { v: 2, key: { _id: 1 }, name: "_id_" },
    { v: 2, key: { book_id: 1, page: 1 }, name: "book_id_1_page_1", unique: true },
  ]);
});

test("creates the same index twice without error", async () => {
  const pages = await pagesCollection();
  await expect(pages.createIndex({ book_id: 1, page: 1 }, { unique: true })).resolves.toBe("book_id_1_page_1");
});

test("rejects an index with an existing name but a different key with IndexKeySpecsConflict (86)", async () => {
  const pages = await pagesCollection();
  await expect(pages.createIndex({ other: 1 }, { name: "book_id_1_page_1" })).rejects.toMatchObject({ code: 86 });
});

test("rejects an index with an existing name and key but different options with IndexOptionsConflict (85)", async () => {
  const pages = await pagesCollection();
  await expect(pages.createIndex({ book_id: 1, page: 1 }, { name: "book_id_1_page_1" })).rejects.toMatchObject({ code: 85 });
});

test("drops an index by name and refuses to drop _id_", async () => {
  const pages = await pagesCollection();
  await pages.dropIndex("book_id_1_page_1");
  expect((await pages.listIndexes().toArray()).map((index) => index["name"])).toEqual(["_id_"]);
  await expect(pages.dropIndex("_id_")).rejects.toMatchObject({ code: 72 });
  await expect(pages.dropIndex("nope")).rejects.toMatchObject({ code: 27 });
});

test("rejects a duplicate key on insert with code 11000, keyPattern and keyValue", async () => {
  const pages = await pagesCollection();
  await pages.insertOne({ book_id: "b", page: 1 });
  const error = await pages.insertOne({ book_id: "b", page: 1 }).catch((e: unknown) => e);
  expect(error).toMatchObject({
    code: 11000,
    keyPattern: { book_id: 1, page: 1 },
    keyValue: { book_id: "b", page: 1 },
    message: `E11000 duplicate key error collection: ${target.db.databaseName}.${pages.collectionName} index: book_id_1_page_1 dup key: { book_id: "b", page: 1 }`,
  });
});

test("rejects a duplicate _id on insert with code 11000", async () => {
  const pages = await pagesCollection();
  await pages.insertOne({ _id: "x" as never });
  await expect(pages.insertOne({ _id: "x" as never })).rejects.toMatchObject({ code: 11000 });
});

test("stops an ordered insert at the first duplicate and continues an unordered one", async () => {
  const ordered = await pagesCollection();
  const docs = [
    { book_id: "a", page: 1 },
    { book_id: "a", page: 1 },
    { book_id: "a", page: 2 },
  ];
  await expect(ordered.insertMany(docs.map((d) => ({ ...d })))).rejects.toMatchObject({ code: 11000 });
  expect(await ordered.countDocuments()).toBe(1);
  const unordered = await pagesCollection();
  await expect(
    unordered.insertMany(
      docs.map((d) => ({ ...d })),
      { ordered: false },
    ),
  ).rejects.toMatchObject({ code: 11000 });
  expect(await unordered.countDocuments()).toBe(2);
});

test("treats numerically equal keys of different types as duplicates", async () => {
  const pages = await pagesCollection();
  await pages.insertOne({ book_id: "b", page: 1 });
  await expect(pages.insertOne({ book_id: "b", page: 1.0 + Number.EPSILON * 0 })).rejects.toMatchObject({ code: 11000 });
});

test("rejects a duplicate key on upsert with code 11000", async () => {
  const pages = await pagesCollection();
  await pages.insertOne({ book_id: "b", page: 1, count: 50 });
  await expect(
    pages.updateOne({ book_id: "b", page: 1, count: { $lt: 50 } }, untypedUpdate({ $inc: { count: 1 } }), { upsert: true }),
  ).rejects.toMatchObject({ code: 11000 });
});

test("rejects a duplicate key on findOneAndUpdate with a top-level 11000 error", async () => {
  const pages = await pagesCollection();
  await pages.insertMany([
    { book_id: "b", page: 1 },
    { book_id: "b", page: 2 },
  ]);
  await expect(pages.findOneAndUpdate({ page: 2 }, { $set: { page: 1 } })).rejects.toMatchObject({
    code: 11000,
    codeName: "DuplicateKey",
    keyValue: { book_id: "b", page: 1 },
  });
});

test("enforces a unique sparse index only on documents that have the field", async () => {
  const people = target.freshCollection("sparse");
  await people.createIndex({ email: 1 }, { unique: true, sparse: true });
  await people.insertMany([{ name: "a" }, { name: "b" }, { email: "x@y" }]);
  await expect(people.insertOne({ email: "x@y" })).rejects.toMatchObject({ code: 11000 });
});

test("refuses a hint naming an index that does not exist", async () => {
  const pages = await pagesCollection();
  await pages.insertOne({ book_id: "b", page: 1 });
  await expect(pages.find({}).hint("nope_1").toArray()).rejects.toMatchObject({ code: 2 });
  await expect(pages.find({}).hint("book_id_1_page_1").toArray()).resolves.toHaveLength(1);
});

test("refuses an upsert whose hint names a missing index, even on a collection that does not exist yet, which it creates as mongod does", async () => {
  const pages = target.freshCollection("q");
  const upsert = () => pages.updateOne({ book_id: "b", page: 0 }, { $inc: { count: 1 } }, { upsert: true, hint: "book_id_1_page_1" });
  await expect(upsert()).rejects.toMatchObject({
    code: 2,
    message: expect.stringMatching(/hint provided does not correspond to an existing index/),
  });
  expect((await pages.listIndexes().toArray()).map((index) => index.name)).toEqual(["_id_"]);
  expect(await pages.countDocuments()).toBe(0);
  await pages.createIndex({ book_id: 1, page: 1 }, { unique: true });
  await expect(upsert()).resolves.toMatchObject({ upsertedCount: 1 });
});

describe("TTL indexes", () => {
  test("lists a TTL index with its expireAfterSeconds", async () => {
    const sessions = target.freshCollection("ttl");
    await sessions.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
    expect(await sessions.listIndexes().toArray()).toContainEqual({
      v: 2,
      key: { expires_at: 1 },
      name: "expires_at_1",
      expireAfterSeconds: 0,
    });
  });

  test("creates the same TTL index twice without error and refuses a different expireAfterSeconds with IndexOptionsConflict (85)", async () => {
    const sessions = target.freshCollection("ttl");
    await sessions.createIndex({ seen_at: 1 }, { expireAfterSeconds: 3600 });
    await expect(sessions.createIndex({ seen_at: 1 }, { expireAfterSeconds: 3600 })).resolves.toBe("seen_at_1");
    await expect(sessions.createIndex({ seen_at: 1 }, { expireAfterSeconds: 60 })).rejects.toMatchObject({ code: 85 });
  });

  test.each([
    ["a compound key", { a: 1, b: 1 }, 10],
    ["a negative expireAfterSeconds", { a: 1 }, -1],
  ])("refuses a TTL index on %s with CannotCreateIndex (67)", async (_case, key, expireAfterSeconds) => {
    await expect(target.freshCollection("ttl").createIndex(key, { expireAfterSeconds })).rejects.toMatchObject({ code: 67 });
  });
});

test("keeps a multikey index's keys exactly as a fresh build would after each kind of array update", async () => {
  const shelf = target.freshCollection("multikey");
  const rebuilt = target.freshCollection("multikey_rebuilt");
  const index = { tags: 1, n: 1 };
  await shelf.createIndex(index);
  await shelf.insertMany([
    { _id: 1 as never, tags: ["a", "b"], n: 1 },
    { _id: 2 as never, tags: ["b"], n: 2 },
  ]);
  const updates = [
    { $push: { tags: "c" } },
    { $pull: { tags: "a" } },
    { $set: { tags: ["b", "b", "d"] } },
    { $set: { n: Long.fromNumber(1) } },
    { $set: { tags: [1, "1"] } },
    { $set: { tags: [] } },
    { $unset: { tags: "" } },
    { $set: { tags: "a" } },
  ];
  // Keys left behind or missing show in what the index scan examines, even where the fetch's filter hides them from the results.
  const scan = async (collection: Collection, tag: unknown) => {
    const cursor = collection.find(untypedFilter({ tags: tag })).hint(index);
    const explained = await cursor.explain("executionStats");
    return { ids: (await cursor.sort({ _id: 1 }).toArray()).map((doc) => doc._id), keys: explained["executionStats"].totalKeysExamined };
  };
  for (const update of updates) {
    await shelf.updateOne({ _id: 1 as never }, untypedUpdate(update));
    await rebuilt.drop().catch(() => undefined);
    await rebuilt.insertMany(await shelf.find().toArray());
    await rebuilt.createIndex(index);
    for (const tag of ["a", "b", "c", "d", 1, "1", null, []]) {
      expect({ update, tag, ...(await scan(shelf, tag)) }).toEqual({ update, tag, ...(await scan(rebuilt, tag)) });
    }
  }
});

describe("an index built over stored documents", () => {
  test("refuses duplicates under a unique key with 11000 naming the key, and leaves no index behind", async () => {
    const shelf = target.freshCollection("unique_build");
    await shelf.insertMany([{ a: 2 }, { a: 1 }, { a: 3 }, { a: 1 }]);
    await expect(shelf.createIndex({ a: 1 }, { unique: true })).rejects.toMatchObject({
      code: 11000,
      message: expect.stringContaining("index: a_1 dup key: { a: 1 }"),
    });
    expect((await shelf.listIndexes().toArray()).map((index) => index["name"])).toEqual(["_id_"]);
  });

  test("refuses a document holding parallel arrays with CannotIndexParallelArrays (171), and leaves no index behind", async () => {
    const shelf = target.freshCollection("parallel_build");
    await shelf.insertMany([
      { a: [1], b: 1 },
      { a: [1, 2], b: [3, 4] },
    ]);
    await expect(shelf.createIndex({ a: 1, b: 1 })).rejects.toMatchObject({ code: 171 });
    expect((await shelf.listIndexes().toArray()).map((index) => index["name"])).toEqual(["_id_"]);
  });

  test("examines the same keys in the same order as one kept up to date by inserts, multikey and descending fields included", async () => {
    const documents = [
      { _id: 1, tags: ["b", "a", "b"], year: 2001 },
      { _id: 2, tags: ["a"], year: 1999 },
      { _id: 3, tags: [], year: Long.fromNumber(2001) },
      { _id: 4, year: 2000.5 },
      { _id: 5, tags: [1, "1", null], year: null },
      { _id: 6, tags: "a", year: 1999 },
    ];
    const index = { tags: 1, year: -1, _id: 1 };
    const kept = target.freshCollection("kept_by_inserts");
    await kept.createIndex(index);
    await kept.insertMany(documents as never[]);
    const built = target.freshCollection("built_after");
    await built.insertMany(documents as never[]);
    await built.createIndex(index);
    const scan = async (collection: Collection, filter: object) => {
      // The hinted scan returns documents in index order: a key out of place shows in the ids.
      const cursor = collection.find(untypedFilter(filter)).hint(index);
      const { executionStats, queryPlanner } = await cursor.explain("executionStats");
      const ids = (await cursor.toArray()).map((doc) => doc._id);
      return { ids, keys: executionStats.totalKeysExamined, multiKey: stageNamed(queryPlanner.winningPlan, "IXSCAN")["isMultiKey"] };
    };
    expect((await scan(built, {})).multiKey).toBe(true);
    for (const filter of [{}, { tags: "a" }, { tags: { $gte: "a" } }, { tags: null }, { tags: [] }, { year: { $lt: 2001 } }]) {
      expect({ filter, ...(await scan(built, filter)) }).toEqual({ filter, ...(await scan(kept, filter)) });
    }
  });
});
