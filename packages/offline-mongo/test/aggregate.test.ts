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

describe("the counts of $limit, $skip and $sample, read as mongod reads them", () => {
  const run = (pipeline: object[]) => target.db.collection("books").aggregate(pipeline).toArray();
  const ids = async (pipeline: object[]) => (await run(pipeline)).map((book) => book["_id"]);

  test.each([
    [{ $limit: 0 }, 15958, "the limit must be positive"],
    [{ $limit: -1 }, 15958, "the limit must be positive"],
    [{ $limit: "2" }, 15957, "the limit must be specified as a number"],
    [{ $skip: -1 }, 15956, "Argument to $skip cannot be negative"],
    [{ $skip: "1" }, 15972, "Argument to $skip must be a number not a string"],
    [{ $sample: 3 }, 28745, "the $sample stage specification must be an object"],
    [{ $sample: { size: "3" } }, 28746, "size argument to $sample must be a number"],
    [{ $sample: { size: -1 } }, 28747, "size argument to $sample must not be negative"],
    [{ $sample: { size: 1, seed: 4 } }, 28748, "unrecognized option to $sample: seed"],
    [{ $sample: {} }, 28749, "$sample stage must specify a size"],
  ])("refuses %j with code %i", async (stage, code, message) => {
    await expect(run([{ $sort: { _id: 1 } }, stage])).rejects.toMatchObject({ code, message });
    await expect(run([stage])).rejects.toMatchObject({ code, message });
  });

  test("truncates a fractional count toward zero", async () => {
    expect(await ids([{ $sort: { _id: 1 } }, { $limit: 2.9 }])).toEqual([1, 2]);
    expect(await ids([{ $sort: { _id: 1 } }, { $skip: 1.9 }])).toEqual([2, 3]);
    expect(await run([{ $sample: { size: 1.9 } }])).toHaveLength(1);
  });

  test("answers a sample of size 0 with no documents and keeps the server up", async () => {
    expect(await run([{ $sample: { size: 0 } }])).toEqual([]);
    expect(await ids([{ $match: { _id: 1 } }])).toEqual([1]);
  });
});

describe("a stage that is not run here", () => {
  it("answers a change stream on a standalone with mongod's 40573", async () => {
    await expect(
      target.db
        .collection("books")
        .aggregate([{ $changeStream: {} }])
        .toArray(),
    ).rejects.toMatchObject({
      code: 40573,
      message: "The $changeStream stage is only supported on replica sets",
    });
  });

  it.each(["$listSearchIndexes", "$search", "$vectorSearch"])(
    "answers %s as a mongod without Atlas Search does (6047401)",
    async (stage) => {
      await expect(
        target.db
          .collection("books")
          .aggregate([{ [stage]: {} }])
          .toArray(),
      ).rejects.toMatchObject({
        code: 6047401,
        message: `${stage} stage is only allowed on MongoDB Atlas`,
      });
    },
  );

  it("answers a stage name mongod does not know with its 40324, inside a $facet too", async () => {
    for (const pipeline of [[{ $matchh: {} }], [{ $facet: { typo: [{ $matchh: {} }] } }]]) {
      await expect(target.db.collection("books").aggregate(pipeline).toArray()).rejects.toMatchObject({
        code: 40324,
        message: "Unrecognized pipeline stage name: '$matchh'",
      });
    }
  });
});
