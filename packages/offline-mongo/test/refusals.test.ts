import { Decimal128 } from "mongodb";
import { startOfflineServer } from "../src";
import { newClient, untypedFilter, useTestDatabase } from "./connect";

// These test the stand-in's own refusals, which by definition are not mongod's behaviour: never run them against MONGODB_URI.
const target = useTestDatabase("refusals", { alwaysOffline: true });

test("refuses $out rather than ignoring it", async () => {
  const books = target.freshCollection("books");
  await books.insertOne({ title: "Dune" });
  await expect(books.aggregate([{ $out: "copy" }]).toArray()).rejects.toMatchObject({
    code: 238,
    message: expect.stringMatching(/^offline server: .*\$out/),
  });
});

test.each(["$collStats", "$indexStats", "$currentOp", "$geoNear"])(
  "refuses %s, a stage mongod runs and the stand-in does not, with NotImplemented (238) rather than an unknown-stage error",
  async (stage) => {
    await expect(
      target
        .freshCollection("stages")
        .aggregate([{ [stage]: {} }])
        .toArray(),
    ).rejects.toMatchObject({
      code: 238,
      message: `offline server: the ${stage} aggregation stage is not supported`,
    });
  },
);

test("refuses a change stream's $changeStreamSplitLargeEvent with NotImplemented (238), where mongod would split large events", async () => {
  const server = await startOfflineServer({ replicaSet: "rs0" });
  const client = newClient(server.uri, { discover: true });
  try {
    await expect(
      client
        .db("refusals")
        .collection("watched")
        .aggregate([{ $changeStream: {} }, { $changeStreamSplitLargeEvent: {} }])
        .toArray(),
    ).rejects.toMatchObject({
      code: 238,
      message: "offline server: the $changeStreamSplitLargeEvent aggregation stage is not supported",
    });
    await expect(
      client
        .db("refusals")
        .collection("watched")
        .aggregate([{ $changeStream: { showSystemEvents: true } }])
        .toArray(),
    ).rejects.toMatchObject({ code: 72, message: "offline server: option 'showSystemEvents' of command '$changeStream' is not supported" });
  } finally {
    await client.close();
    await server.stop();
  }
});

test("refuses a collation rather than ignoring it", async () => {
  const collated = target.freshCollection("collated");
  await collated.insertOne({ s: "a" });
  await expect(collated.find({ s: "A" }, { collation: { locale: "en", strength: 2 } }).toArray()).rejects.toMatchObject({
    code: 72,
    message: expect.stringMatching(/^offline server: .*collation/),
  });
});

test("refuses an index type it does not implement", async () => {
  await expect(target.freshCollection("text").createIndex({ body: "text" })).rejects.toMatchObject({
    code: 238,
    message: expect.stringMatching(/^offline server: .*text/),
  });
});

test.each(["int", "long", "double", "decimal", 16, 18, 1, 19])(
  "refuses $type %p with NotImplemented (238), as it matches numbers by value and cannot tell their BSON types apart",
  async (alias) => {
    const numbers = target.freshCollection("numbers");
    await numbers.insertOne({ n: 1 });
    await expect(numbers.find(untypedFilter({ n: { $type: alias } })).toArray()).rejects.toMatchObject({
      code: 238,
      codeName: "NotImplemented",
      message: expect.stringMatching(/^offline server:/),
    });
  },
);

test("refuses a numeric $type alias inside a list of aliases", async () => {
  const numbers = target.freshCollection("numbers");
  await numbers.insertOne({ n: 1 });
  await expect(numbers.find(untypedFilter({ n: { $type: ["string", "int"] } })).toArray()).rejects.toMatchObject({ code: 238 });
});

test("refuses to sort on Decimal128 values rather than ordering them after every other type", async () => {
  const prices = target.freshCollection("prices");
  await prices.insertMany([{ price: Decimal128.fromString("1.5") }, { price: 2 }]);
  await expect(prices.find().sort({ price: 1 }).toArray()).rejects.toMatchObject({
    code: 238,
    message: expect.stringMatching(/^offline server: .*Decimal128/),
  });
});

test("refuses an arrayFilters condition on a Decimal128 value rather than matching no element", async () => {
  const carts = target.freshCollection("carts");
  await carts.insertOne({ lines: [{ price: 1 }, { price: 2 }] });
  await expect(
    carts.updateOne({}, { $set: { "lines.$[line].price": 9 } }, { arrayFilters: [{ "line.price": Decimal128.fromString("1") }] }),
  ).rejects.toMatchObject({ code: 238, message: expect.stringMatching(/^offline server: .*Decimal128/) });
});

test("refuses a snapshot read at a time no earlier snapshot read kept, with writes since (mongod keeps five minutes of history)", async () => {
  const server = await startOfflineServer({ replicaSet: "rs0" });
  const client = newClient(server.uri, { discover: true });
  try {
    const db = client.db("refusals");
    await db.collection<{ _id: number }>("read_at").insertOne({ _id: 1 });
    const { operationTime } = await db.command({ ping: 1 });
    await db.collection<{ _id: number }>("read_at").insertOne({ _id: 2 });
    await expect(db.command({ find: "read_at", readConcern: { level: "snapshot", atClusterTime: operationTime } })).rejects.toMatchObject({
      code: 238,
      message: expect.stringMatching(/^offline server: reading at atClusterTime .* is not supported$/),
    });
  } finally {
    await client.close();
    await server.stop();
  }
});
