import { useTestDatabase } from "./connect";

const target = useTestDatabase("aggregate");

beforeAll(async () => {
  await target.db.collection("books").insertMany([
    { _id: 1 as never, title: "Dune", author_id: 10 },
    { _id: 2 as never, title: "Emma", author_id: 20 },
    { _id: 3 as never, title: "Persuasion", author_id: 20 },
  ]);
  await target.db.collection("authors").insertMany([
    { _id: 10 as never, name: "Herbert" },
    { _id: 20 as never, name: "Austen" },
  ]);
});

test("joins another collection of the same database with $lookup", async () => {
  const result = await target.db
    .collection("books")
    .aggregate([
      { $match: { _id: 1 } },
      { $lookup: { from: "authors", localField: "author_id", foreignField: "_id", as: "author" } },
      { $project: { title: 1, "author.name": 1 } },
    ])
    .toArray();
  expect(result).toEqual([{ _id: 1, title: "Dune", author: [{ name: "Herbert" }] }]);
});

test("groups and sorts", async () => {
  const result = await target.db
    .collection("books")
    .aggregate([{ $group: { _id: "$author_id", n: { $sum: 1 } } }, { $sort: { _id: 1 } }])
    .toArray();
  expect(result).toEqual([
    { _id: 10, n: 1 },
    { _id: 20, n: 2 },
  ]);
});

test("returns aggregation results across getMore batches", async () => {
  const result = await target.db
    .collection("books")
    .aggregate([{ $sort: { _id: -1 } }], { batchSize: 1 })
    .toArray();
  expect(result.map((d) => d["_id"])).toEqual([3, 2, 1]);
});

test("matches a string value that merely spells a JavaScript operator's name", async () => {
  const notes = target.db.collection("notes");
  await notes.insertMany([{ text: "$where" }, { text: "elsewhere" }]);
  const found = await notes.aggregate([{ $match: { text: "$where" } }, { $project: { _id: 0, text: 1 } }]).toArray();
  expect(found).toEqual([{ text: "$where" }]);
});
