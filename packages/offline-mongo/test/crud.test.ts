import { Double, Int32, Long, ObjectId } from "mongodb";
import { RAW_NUMBERS, untypedFilter, useTestDatabase } from "./connect";

const target = useTestDatabase("crud");
const freshCollection = () => target.freshCollection("c");

test("round-trips int32, int64, double, Date, ObjectId, strings, booleans, null and nesting exactly", async () => {
  const books = freshCollection();
  const doc = {
    _id: new ObjectId(),
    int: new Int32(7),
    long: Long.fromString("9007199254740993"),
    double: new Double(2),
    date: new Date("2024-05-01T10:00:00Z"),
    text: "héllo",
    yes: true,
    nothing: null,
    nested: { list: [new Int32(1), new Double(1.5), { deep: Long.fromNumber(3) }] },
  };
  await books.insertOne(doc);
  const found = await books.findOne({ _id: doc._id }, RAW_NUMBERS);
  expect(found).toEqual(doc);
});

test("finds documents by ObjectId equality and by $in over ObjectIds and dates", async () => {
  const books = freshCollection();
  const ids = [new ObjectId(), new ObjectId(), new ObjectId()];
  await books.insertMany(ids.map((_id, i) => ({ _id, at: new Date(1000 * i) })));
  expect(await books.findOne({ _id: new ObjectId(ids[1]?.toHexString()) })).toEqual({ _id: ids[1], at: new Date(1000) });
  expect(await books.countDocuments({ _id: { $in: ids.filter((_, i) => i !== 1) } })).toBe(2);
  expect(await books.countDocuments({ at: { $in: [new Date(0), new Date(2000)] } })).toBe(2);
});

test("matches 1, 1.0 and Long 1 as equal numbers", async () => {
  const numbers = freshCollection();
  await numbers.insertMany([{ n: new Int32(1) }, { n: new Double(1) }, { n: Long.fromNumber(1) }, { n: 2 }]);
  expect(await numbers.countDocuments({ n: 1 })).toBe(3);
  expect(await numbers.countDocuments({ n: new Double(1) })).toBe(3);
});

test("returns documents in insertion order when no sort is given", async () => {
  const items = freshCollection();
  await items.insertMany([{ k: "b" }, { k: "a" }, { k: "c" }]);
  expect((await items.find({}, { projection: { _id: 0 } }).toArray()).map((d) => d["k"])).toEqual(["b", "a", "c"]);
});

test("sorts, skips and limits like mongod", async () => {
  const items = freshCollection();
  await items.insertMany([{ n: 3 }, { n: 1 }, { n: 2 }, { n: 5 }, { n: 4 }]);
  const result = await items
    .find({}, { projection: { _id: 0 } })
    .sort({ n: -1 })
    .skip(1)
    .limit(3)
    .toArray();
  expect(result).toEqual([{ n: 4 }, { n: 3 }, { n: 2 }]);
});

test("iterates a cursor across several getMore batches without losing or repeating documents", async () => {
  const items = freshCollection();
  await items.insertMany(Array.from({ length: 350 }, (_, i) => ({ i })));
  const seen = await items.find({}).batchSize(40).toArray();
  expect(seen.map((d) => d["i"])).toEqual(Array.from({ length: 350 }, (_, i) => i));
});

test("counts with a filter, skip and limit", async () => {
  const items = freshCollection();
  await items.insertMany(Array.from({ length: 20 }, (_, i) => ({ i })));
  expect(await items.countDocuments({ i: { $gte: 5 } }, { skip: 2, limit: 10 })).toBe(10);
  expect(await target.db.command({ count: items.collectionName, query: { i: { $lt: 3 } } })).toMatchObject({ n: 3, ok: 1 });
});

test("returns distinct values, unwinding arrays", async () => {
  const items = freshCollection();
  await items.insertMany([{ tags: ["a", "b"] }, { tags: "b" }, { tags: ["c"] }, {}]);
  expect((await items.distinct("tags")).sort()).toEqual(["a", "b", "c"]);
});

test("answers distinct values sorted in BSON order, numbers before strings before documents", async () => {
  const items = freshCollection();
  await items.insertMany([{ v: "b" }, { v: { y: 1 } }, { v: 3 }, { v: ["a", 1] }, { v: 2.5 }, { v: { x: 2 } }]);
  expect(await items.distinct("v")).toEqual([1, 2.5, 3, "a", "b", { x: 2 }, { y: 1 }]);
});

test("sorts across BSON types as mongod: empty array, null, numbers with NaN first, strings, documents by field name, ObjectId, bool, date", async () => {
  const items = freshCollection();
  await items.insertMany([
    { at: 1, v: new Date(0) },
    { at: 2, v: true },
    { at: 3, v: new ObjectId("650000000000000000000001") },
    { at: 4, v: { b: 1 } },
    { at: 5, v: { a: 2 } },
    { at: 6, v: "x" },
    { at: 7, v: 5 },
    { at: 8, v: -Infinity },
    { at: 9, v: NaN },
    { at: 10, v: null },
    { at: 11, v: [] },
  ]);
  const ascending = await items
    .find({}, { projection: { _id: 0, at: 1 } })
    .sort({ v: 1 })
    .toArray();
  expect(ascending.map((doc) => doc["at"])).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  const descending = await items
    .find({}, { projection: { _id: 0, at: 1 } })
    .sort({ v: -1 })
    .toArray();
  expect(descending.map((doc) => doc["at"])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

test("deletes one or many documents", async () => {
  const items = freshCollection();
  await items.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
  expect((await items.deleteOne({ k: 1 })).deletedCount).toBe(1);
  expect((await items.deleteMany({ k: 1 })).deletedCount).toBe(2);
  expect(await items.countDocuments({})).toBe(1);
});

test("matches an array shorter than 50 elements with {'list.49': {$exists: false}} but not one of 50", async () => {
  const items = freshCollection();
  await items.insertMany([
    { name: "short", list: Array.from({ length: 49 }, (_, i) => i) },
    { name: "full", list: Array.from({ length: 50 }, (_, i) => i) },
  ]);
  const found = await items.find({ "list.49": { $exists: false } }).toArray();
  expect(found.map((d) => d["name"])).toEqual(["short"]);
});

test("projects with inclusion, exclusion, $slice and $elemMatch keeping _id first", async () => {
  const items = freshCollection();
  await items.insertOne({
    _id: new Int32(1) as unknown as ObjectId,
    a: 1,
    b: { c: 2, d: 3 },
    list: [1, 2, 3, 4, 5],
    pairs: [{ k: 1 }, { k: 2 }],
  });
  expect(await items.findOne({}, { projection: { "b.c": 1, a: 1 } })).toEqual({ _id: 1, a: 1, b: { c: 2 } });
  expect(await items.findOne({}, { projection: { b: 0, list: 0, pairs: 0 } })).toEqual({ _id: 1, a: 1 });
  expect(await items.findOne({}, { projection: { list: { $slice: -2 }, _id: 0, a: 0, b: 0, pairs: 0 } })).toEqual({ list: [4, 5] });
  expect(await items.findOne({}, { projection: { list: { $slice: [1, 2] }, a: 1 } })).toEqual({ _id: 1, a: 1, list: [2, 3] });
  expect(await items.findOne({}, { projection: { pairs: { $elemMatch: { k: 2 } } } })).toEqual({ _id: 1, pairs: [{ k: 2 }] });
});

test("rejects an unknown query operator with code 2", async () => {
  const items = freshCollection();
  await items.insertOne({ a: 1 });
  await expect(items.findOne({ a: { $foo: 1 } })).rejects.toMatchObject({ code: 2, message: "unknown operator: $foo" });
});

test.each([
  [{ $size: -1 }, "$size may not be negative"],
  [{ $size: 1.5 }, "$size must be a whole number"],
  [{ $size: "1" }, "$size needs a number"],
  [{ $mod: [0, 1] }, "divisor cannot be 0"],
])("refuses the filter {a: %j} with code 2 rather than matching nothing", async (condition, message) => {
  const items = freshCollection();
  await items.insertOne({ a: [1] });
  await expect(items.find(untypedFilter({ a: condition })).toArray()).rejects.toMatchObject({ code: 2, message });
});

test.each(["skip", "limit", "batchSize"])("refuses a find command with a negative %s (51024)", async (field) => {
  const items = freshCollection();
  await expect(target.db.command({ find: items.collectionName, [field]: -1 })).rejects.toMatchObject({
    code: 51024,
    message: `BSON field '${field}' value must be >= 0, actual value '-1'`,
  });
});

test("truncates a find command's fractional limit toward zero", async () => {
  const items = freshCollection();
  await items.insertMany([{ a: 1 }, { a: 2 }]);
  const reply = await target.db.command({ find: items.collectionName, limit: 1.5 });
  expect(reply["cursor"].firstBatch).toHaveLength(1);
});

test("closes a cursor with killCursors", async () => {
  const items = freshCollection();
  await items.insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
  const first = await target.db.command({ find: items.collectionName, batchSize: 2 });
  const id = first["cursor"]["id"] as Long;
  const killed = await target.db.command({ killCursors: items.collectionName, cursors: [id] });
  expect(killed["cursorsKilled"]).toEqual([id]);
  await expect(target.db.command({ getMore: id, collection: items.collectionName })).rejects.toMatchObject({ code: 43 });
});

test.each([
  ["find", (collection: string) => ({ find: collection, batchSize: 2 })],
  ["aggregate", (collection: string) => ({ aggregate: collection, pipeline: [], cursor: { batchSize: 2 } })],
])("kills an open %s cursor when its collection is dropped (QueryPlanKilled, 175)", async (_kind, open) => {
  const items = freshCollection();
  await items.insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
  const first = await target.db.command(open(items.collectionName));
  const id = first["cursor"]["id"] as Long;
  await items.drop();
  const getMore = () => target.db.command({ getMore: id, collection: items.collectionName });
  await expect(getMore()).rejects.toMatchObject({ code: 175, codeName: "QueryPlanKilled" });
  await expect(getMore()).rejects.toMatchObject({ code: 43 });
});

test("answers getMore on an unknown cursor with CursorNotFound (43)", async () => {
  const items = freshCollection();
  await expect(target.db.command({ getMore: Long.fromNumber(123456789), collection: items.collectionName })).rejects.toMatchObject({
    code: 43,
    codeName: "CursorNotFound",
  });
});

test("reports cursor ids as int64", async () => {
  const items = freshCollection();
  await items.insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
  const reply = await target.db.command({ find: items.collectionName, batchSize: 2 }, { promoteLongs: false });
  expect(reply["cursor"]["id"]).toBeInstanceOf(Long);
  expect(reply["cursor"]["ns"]).toBe(`${target.db.databaseName}.${items.collectionName}`);
  expect(reply["cursor"]["firstBatch"]).toHaveLength(2);
});

test("matches only ObjectIds with $type 'objectId'", async () => {
  const items = freshCollection();
  const oid = new ObjectId();
  await items.insertMany([{ _id: 1 as never }, { _id: "a" as never }, { _id: oid }]);
  expect(await items.find({ _id: { $type: "objectId" } }).toArray()).toEqual([{ _id: oid }]);
});

test("matches any of the types given as a list to $type", async () => {
  const items = freshCollection();
  const oid = new ObjectId();
  await items.insertMany([{ _id: 1 as never }, { _id: "a" as never }, { _id: oid }, { _id: true as never }]);
  const found = await items
    .find(untypedFilter({ _id: { $type: ["string", "objectId"] } }))
    .sort({ _id: 1 })
    .toArray();
  expect(found).toEqual([{ _id: "a" }, { _id: oid }]);
});

test("pages past the last number _id to string and then ObjectId _ids in BSON order with $or and $type", async () => {
  const items = freshCollection();
  const oids = [new ObjectId(), new ObjectId()].sort((a, b) => a.toHexString().localeCompare(b.toHexString()));
  const ids: unknown[] = [oids[1], "b", 7, 3, "a", oids[0], 6, 5];
  await items.insertMany(ids.map((_id) => ({ _id: _id as never })));
  const page = await items
    .find(untypedFilter({ $or: [{ _id: { $gt: 5 } }, { _id: { $type: "string" } }, { _id: { $type: "objectId" } }] }))
    .sort({ _id: 1 })
    .toArray();
  expect(page.map((d) => d._id)).toEqual([6, 7, "a", "b", oids[0], oids[1]]);
});

test("matches a field holding an array with $type 'array'", async () => {
  const items = freshCollection();
  await items.insertMany([
    { name: "list", v: [1, 2] },
    { name: "scalar", v: 1 },
    { name: "object", v: { a: 1 } },
  ]);
  const found = await items.find({ v: { $type: "array" } }).toArray();
  expect(found.map((d) => d["name"])).toEqual(["list"]);
});

test("matches int32, int64 and double values with $type 'number'", async () => {
  const items = freshCollection();
  await items.insertMany([
    { name: "int", v: new Int32(1) },
    { name: "long", v: Long.fromNumber(2) },
    { name: "double", v: new Double(1.5) },
    { name: "string", v: "1" },
  ]);
  const found = await items.find({ v: { $type: "number" } }).toArray();
  expect(found.map((d) => d["name"]).sort()).toEqual(["double", "int", "long"]);
});
