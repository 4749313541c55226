import { Double, Int32, Long, ObjectId } from "mongodb";
import { RAW_NUMBERS, untypedUpdate, useTestDatabase } from "./connect";

const target = useTestDatabase("updates");
const freshCollection = () => target.freshCollection("u");

test("reports matched and modified counts, not counting a no-op as modified", async () => {
  const items = freshCollection();
  await items.insertMany([
    { k: 1, v: 1 },
    { k: 1, v: 2 },
  ]);
  expect(await items.updateMany({ k: 1 }, { $set: { v: 2 } })).toMatchObject({ matchedCount: 2, modifiedCount: 1 });
});

// The stand-in compares sizes before bytes, so these pin both outcomes at an unchanged size.
test("counts a write that changes a value but not the document's size as modified, and the same value again as not", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ word: "abc", n: new Int32(1) });
  expect(await items.updateOne({ _id: insertedId }, { $set: { word: "abd" } })).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
  expect(await items.updateOne({ _id: insertedId }, { $inc: { n: 1 } })).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
  expect(await items.updateOne({ _id: insertedId }, { $set: { word: "abd", n: new Int32(2) } })).toMatchObject({
    matchedCount: 1,
    modifiedCount: 0,
  });
  expect(await items.findOne({ _id: insertedId }, RAW_NUMBERS)).toEqual({ _id: insertedId, word: "abd", n: new Int32(2) });
});

test("keeps each number's BSON type through $inc, promoting int32 overflow to int64", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ i: new Int32(1), d: new Double(1), l: Long.fromNumber(1), big: new Int32(2147483647) });
  await items.updateOne({ _id: insertedId }, { $inc: { i: 1, d: 1, l: 1, big: 1 } });
  expect(await items.findOne({ _id: insertedId }, RAW_NUMBERS)).toEqual({
    _id: insertedId,
    i: new Int32(2),
    d: new Double(2),
    l: Long.fromNumber(2),
    big: Long.fromNumber(2147483648),
  });
});

test("sets a double where an int32 was when $set gives a double", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ n: new Int32(1), other: new Int32(5) });
  await items.updateOne({ _id: insertedId }, { $set: { n: new Double(1) } });
  expect(await items.findOne({ _id: insertedId }, RAW_NUMBERS)).toEqual({ _id: insertedId, n: new Double(1), other: new Int32(5) });
});

test("seeds an upsert from the filter's equality fields and applies $setOnInsert", async () => {
  const items = freshCollection();
  const result = await items.updateOne(
    { book: "b1", page: 3, count: { $lt: 50 } },
    untypedUpdate({ $push: { buyers: "ann" }, $inc: { count: 1 }, $setOnInsert: { created: true } }),
    { upsert: true },
  );
  expect(result.upsertedCount).toBe(1);
  expect(await items.findOne({ _id: result.upsertedId! }, { projection: { _id: 0 } })).toEqual({
    book: "b1",
    page: 3,
    buyers: ["ann"],
    count: 1,
    created: true,
  });
});

test.each([
  ["a one-element $in", { x: { $in: [1] } }],
  ["a one-element $all", { x: { $all: [1] } }],
  ["a one-clause $or", { $or: [{ x: 1 }] }],
  ["$eq inside $and", { $and: [{ x: { $eq: 1 } }] }],
])("seeds an upsert from %s", async (_label, filter) => {
  const items = freshCollection();
  await items.updateOne(filter, { $set: { y: 2 } }, { upsert: true });
  expect(await items.findOne({}, { projection: { _id: 0 } })).toEqual({ x: 1, y: 2 });
});

test.each([
  ["a regex", { x: /abc/ }],
  ["a two-element $in", { x: { $in: [1, 2] } }],
  ["a two-clause $or", { $or: [{ x: 1 }, { x: 2 }] }],
])("does not seed an upsert from %s", async (_label, filter) => {
  const items = freshCollection();
  await items.updateOne(filter, { $set: { y: 2 } }, { upsert: true });
  expect(await items.findOne({}, { projection: { _id: 0 } })).toEqual({ y: 2 });
});

test.each([
  ["the same path twice", { $and: [{ x: 1 }, { x: 1 }] }],
  ["a path and its prefix", { x: { y: 1 }, "x.y": 1 }],
  ["a two-element $all", { x: { $all: [1, 2] } }],
])("rejects an upsert whose filter seeds %s with NotSingleValueField (54)", async (_label, filter) => {
  const items = freshCollection();
  await expect(items.updateOne(filter, { $set: { y: 2 } }, { upsert: true })).rejects.toMatchObject({
    code: 54,
    message: expect.stringMatching(/^cannot infer query fields to set/),
  });
  expect(await items.countDocuments()).toBe(0);
});

test("seeds a replacement upsert from the filter's _id only", async () => {
  const items = freshCollection();
  await items.replaceOne({ _id: new ObjectId("650000000000000000000002"), x: 1, "x.y": 1 }, { y: 2 }, { upsert: true });
  expect(await items.findOne({})).toEqual({ _id: new ObjectId("650000000000000000000002"), y: 2 });
});

test("rejects findAndModify with both remove and new, naming why, with FailedToParse (9)", async () => {
  const items = freshCollection();
  await items.insertOne({ k: 1 });
  await expect(target.db.command({ findAndModify: items.collectionName, query: {}, remove: true, new: true })).rejects.toMatchObject({
    code: 9,
    message: "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
  });
  expect(await items.countDocuments()).toBe(1);
});

test("ignores $setOnInsert when the upsert matches an existing document", async () => {
  const items = freshCollection();
  await items.insertOne({ k: 1 });
  await items.updateOne({ k: 1 }, { $set: { s: 1 }, $setOnInsert: { created: true } }, { upsert: true });
  expect(await items.findOne({ k: 1 }, { projection: { _id: 0 } })).toEqual({ k: 1, s: 1 });
});

test("replaces a whole document, keeping its _id", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ a: 1, b: 2 });
  await items.replaceOne({ _id: insertedId }, { c: 3 });
  expect(await items.findOne({ _id: insertedId })).toEqual({ _id: insertedId, c: 3 });
});

test("updates array elements selected by arrayFilters", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ grades: [{ g: 80 }, { g: 95 }, { g: 99 }] });
  await items.updateOne({ _id: insertedId }, { $set: { "grades.$[high].top": true } }, { arrayFilters: [{ "high.g": { $gte: 95 } }] });
  expect((await items.findOne({ _id: insertedId }))?.["grades"]).toEqual([{ g: 80 }, { g: 95, top: true }, { g: 99, top: true }]);
});

test("updates the array element matched by the query with the positional $", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({
    list: [
      { k: "a", n: 1 },
      { k: "b", n: 1 },
    ],
  });
  await items.updateOne({ _id: insertedId, "list.k": "b" }, { $inc: { "list.$.n": 5 } });
  expect((await items.findOne({ _id: insertedId }))?.["list"]).toEqual([
    { k: "a", n: 1 },
    { k: "b", n: 6 },
  ]);
});

test("returns the document before or after findOneAndUpdate", async () => {
  const items = freshCollection();
  await items.insertOne({ k: 1, v: 1 });
  expect(await items.findOneAndUpdate({ k: 1 }, { $inc: { v: 1 } }, { projection: { _id: 0 } })).toEqual({ k: 1, v: 1 });
  expect(await items.findOneAndUpdate({ k: 1 }, { $inc: { v: 1 } }, { returnDocument: "after", projection: { _id: 0 } })).toEqual({
    k: 1,
    v: 3,
  });
});

test("reports lastErrorObject for a findAndModify upsert", async () => {
  const items = freshCollection();
  const reply = await target.db.command({
    findAndModify: items.collectionName,
    query: { k: 9 },
    update: { $set: { v: 1 } },
    upsert: true,
    new: true,
  });
  expect(reply["lastErrorObject"]).toMatchObject({ n: 1, updatedExisting: false });
  expect(reply["lastErrorObject"]["upserted"]).toBeInstanceOf(ObjectId);
  expect(reply["value"]).toMatchObject({ k: 9, v: 1 });
});

test("removes and returns a document with findOneAndDelete, honouring sort", async () => {
  const items = freshCollection();
  await items.insertMany([{ n: 2 }, { n: 1 }, { n: 3 }]);
  expect(await items.findOneAndDelete({}, { sort: { n: 1 }, projection: { _id: 0 } })).toEqual({ n: 1 });
  expect(await items.countDocuments()).toBe(2);
});

test("rejects $inc on a string with TypeMismatch (14) naming the document and field", async () => {
  const items = freshCollection();
  await items.insertOne({ _id: new Int32(1) as unknown as ObjectId, x: "text" });
  await expect(items.updateOne({}, { $inc: { x: 1 } })).rejects.toMatchObject({
    code: 14,
    message: "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'x' of non-numeric type string",
  });
});

test("rejects $push to a non-array with BadValue (2)", async () => {
  const items = freshCollection();
  await items.insertOne({ _id: new Int32(1) as unknown as ObjectId, x: "text" });
  await expect(items.updateOne({}, untypedUpdate({ $push: { x: 1 } }))).rejects.toMatchObject({
    code: 2,
    message: "The field 'x' must be an array but is of type string in document {_id: 1}",
  });
});

test("rejects $set through a scalar with PathNotViable (28)", async () => {
  const items = freshCollection();
  await items.insertOne({ a: 5 });
  await expect(items.updateOne({}, { $set: { "a.b": 1 } })).rejects.toMatchObject({ code: 28 });
});

test("rejects an unknown update operator with FailedToParse (9)", async () => {
  const items = freshCollection();
  await items.insertOne({ a: 5 });
  await expect(items.updateOne({}, untypedUpdate({ $foo: { a: 1 } }))).rejects.toMatchObject({
    code: 9,
    message: expect.stringMatching(/^Unknown modifier: \$foo\./),
  });
});

test("rejects changing _id with ImmutableField (66)", async () => {
  const items = freshCollection();
  await items.insertOne({ _id: new Int32(1) as unknown as ObjectId });
  await expect(items.updateOne({}, { $set: { _id: 2 } })).rejects.toMatchObject({
    code: 66,
    message: "Performing an update on the path '_id' would modify the immutable field '_id'",
  });
});

test("rejects two operators on the same path with ConflictingUpdateOperators (40)", async () => {
  const items = freshCollection();
  await items.insertOne({ a: 1 });
  await expect(items.updateOne({}, { $set: { a: 1 }, $inc: { a: 1 } })).rejects.toMatchObject({ code: 40 });
});

test("leaves the document untouched when an update fails part-way", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ n: 1, s: "x" });
  await expect(items.updateOne({ _id: insertedId }, { $inc: { n: 1, s: 1 } })).rejects.toMatchObject({ code: 14 });
  expect(await items.findOne({ _id: insertedId })).toEqual({ _id: insertedId, n: 1, s: "x" });
});

test("rejects an update that makes the document larger than 16 MiB with code 17419", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ a: "x".repeat(9 * 1024 * 1024) });
  await expect(items.updateOne({ _id: insertedId }, { $set: { b: "y".repeat(9 * 1024 * 1024) } })).rejects.toMatchObject({ code: 17419 });
});

test("stores an upserted document's fields as _id, the filter's equality fields, then the created fields in lexicographic order", async () => {
  const items = freshCollection();
  const result = await items.updateOne(
    { book_id: 1, page: 0, count: { $lt: 5 } },
    untypedUpdate({ $push: { customers_purchased_extra: "a" }, $inc: { count: 1 } }),
    { upsert: true },
  );
  const stored = await items.findOne({ _id: result.upsertedId! });
  expect(Object.keys(stored ?? {})).toEqual(["_id", "book_id", "page", "count", "customers_purchased_extra"]);
});

test("appends the fields an update creates in lexicographic order, not in the order the update names them", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ m: 1 });
  await items.updateOne({ _id: insertedId }, { $set: { z: 1, b: 2 } });
  expect(Object.keys((await items.findOne({ _id: insertedId })) ?? {})).toEqual(["_id", "m", "b", "z"]);
});

test("keeps an existing field in its place when an update changes it", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ z: 1, m: 1 });
  await items.updateOne({ _id: insertedId }, { $set: { b: 1, z: 2 } });
  expect(Object.keys((await items.findOne({ _id: insertedId })) ?? {})).toEqual(["_id", "z", "m", "b"]);
});

test("appends the fields an update creates inside an existing subdocument in lexicographic order", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ sub: { m: 1 } });
  await items.updateOne({ _id: insertedId }, { $set: { "sub.z": 1, "sub.b": 2 } });
  const sub = (await items.findOne({ _id: insertedId }))?.["sub"] as Record<string, unknown>;
  expect(Object.keys(sub)).toEqual(["m", "b", "z"]);
});

test("runs an update given as a pipeline, keeping the types of the fields it leaves, and refuses stages mongod refuses there", async () => {
  const items = freshCollection();
  const { insertedId } = await items.insertOne({ kept: Long.fromNumber(7), list: [1, 2, 3] });
  await items.updateOne({ _id: insertedId }, [{ $set: { total: { $sum: "$list" } } }, { $unset: "list" }]);
  expect(await items.findOne({ _id: insertedId }, RAW_NUMBERS)).toEqual({ _id: insertedId, kept: Long.fromNumber(7), total: new Int32(6) });
  await expect(items.updateOne({ _id: insertedId }, [{ $group: { _id: null } }])).rejects.toMatchObject({ code: 72 });
  await expect(items.updateOne({ _id: insertedId }, [{ $set: { _id: 1 } }])).rejects.toMatchObject({ code: 66 });
});
