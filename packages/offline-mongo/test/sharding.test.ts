import type { Document } from "mongodb";
import { startOfflineServer } from "../src";
import { newClient, serverError, useTestDatabase } from "./connect";

// The stand-in's simulation of mongos over 4 shards: no mongos runs here, so this file always starts its own
// stand-in in that mode. The refusals it checks are mongos 7.0's, in its words (see src/sharding/simulation.ts).
const SHARDS = 4;
const target = useTestDatabase("sharding", { alwaysOffline: true, offlineServer: { shards: SHARDS } });

/** Books by number, claims by book and purchase id, as these tests write them. */
interface Doc {
  _id: number | { book_id: number; purchase_id: string };
  author?: string;
  title?: string;
  year?: number;
  sold?: number;
  seen?: number;
  book_id?: number;
  page?: number;
  buyers?: string[];
  done?: boolean;
}

let collections = 0;
/** A fresh collection of this file's database, sharded on `key`. */
async function shardedCollection(key: Document) {
  const name = `sharded_${collections++}`;
  await target.client.db("admin").command({ shardCollection: `${target.db.databaseName}.${name}`, key });
  return target.db.collection<Doc>(name);
}

interface Stats {
  commands: { namespace: string; command: string; shards: number; count: number }[];
  transactions: { db: string; outcome: string; shards: number; count: number }[];
}

async function statsAfter(run: () => Promise<unknown>): Promise<Stats> {
  await target.client.db("admin").command({ shardTargetingStats: 1, reset: true });
  await run();
  return (await target.client.db("admin").command({ shardTargetingStats: 1 })) as unknown as Stats;
}

/** The shard counts of the commands named `command`, one entry per command. */
function shardsOf(stats: Stats, command: string): number[] {
  return stats.commands.filter((entry) => entry.command === command).flatMap((entry) => Array<number>(entry.count).fill(entry.shards));
}

describe("shardCollection", () => {
  test("is idempotent with the same key and refused with mongos's AlreadyInitialized (23) for another", async () => {
    const books = await shardedCollection({ _id: "hashed" });
    const admin = target.client.db("admin");
    const namespace = `${target.db.databaseName}.${books.collectionName}`;
    await expect(admin.command({ shardCollection: namespace, key: { _id: "hashed" } })).resolves.toMatchObject({ ok: 1 });
    const error = await serverError(admin.command({ shardCollection: namespace, key: { title: 1 } }));
    expect(error).toMatchObject({ code: 23, codeName: "AlreadyInitialized" });
    expect(error.message).toContain(`sharding already enabled for collection ${namespace}`);
  });

  test("records each sharded collection's key in config.collections, where a tool reads it as on a cluster", async () => {
    const books = await shardedCollection({ _id: "hashed" });
    const namespace = `${target.db.databaseName}.${books.collectionName}`;
    const recorded = await target.client.db("config").collection<{ _id: string }>("collections").findOne({ _id: namespace });
    expect(recorded).toEqual({ _id: namespace, key: { _id: "hashed" }, unique: false });
  });

  test("refuses a key over an existing unique index it does not prefix, with mongos's InvalidOptions (72)", async () => {
    const pages = target.db.collection<Doc>(`sharded_${collections++}`);
    await pages.createIndex({ page: 1, book_id: 1 }, { unique: true });
    const error = await serverError(
      target.client
        .db("admin")
        .command({ shardCollection: `${target.db.databaseName}.${pages.collectionName}`, key: { book_id: "hashed" } }),
    );
    expect(error).toMatchObject({ code: 72 });
    expect(error.message).toMatch(
      /^can't shard collection '.*' with unique index on \{ page: 1, book_id: 1 \}.*Uniqueness can't be maintained unless shard key is a prefix$/,
    );
  });
});

describe("mongos's refusals on a sharded collection", () => {
  test("a unique index the shard key does not prefix: CannotCreateIndex (67); one it prefixes, even hashed, is created", async () => {
    const pages = await shardedCollection({ book_id: "hashed" });
    const error = await serverError(pages.createIndex({ page: 1 }, { unique: true }));
    expect(error).toMatchObject({
      code: 67,
      message: 'cannot create unique index over { page: 1 } with shard key pattern { book_id: "hashed" }',
    });
    await expect(pages.createIndex({ book_id: 1, page: 1 }, { unique: true })).resolves.toBe("book_id_1_page_1");
  });

  test("an upsert whose filter lacks the whole shard key: ShardKeyNotFound (61)", async () => {
    const pages = await shardedCollection({ book_id: 1, page: 1 });
    const error = await serverError(pages.updateOne({ book_id: 7 }, { $push: { buyers: "c1" } }, { upsert: true }));
    expect(error).toMatchObject({ code: 61, message: "Failed to target upsert by query :: could not extract exact shard key" });
    await pages.updateOne({ book_id: 7, page: 0 }, { $push: { buyers: "c1" } }, { upsert: true });
    expect(await pages.countDocuments({ book_id: 7 })).toBe(1);
  });

  test("a single update reaching several shards without an exact _id: InvalidOptions (72); with the key or _id it runs", async () => {
    const books = await shardedCollection({ author: 1 });
    await books.insertMany([{ _id: 1, author: "Le Guin", title: "Lathe" }]);
    const error = await serverError(books.updateOne({ title: "Lathe" }, { $set: { year: 1971 } }));
    expect(error.code).toBe(72);
    expect(error.message).toMatch(
      /^A \{multi:false\} update on a sharded collection must contain an exact match on _id .* targeted 4 shards/,
    );
    await books.updateOne({ _id: 1 }, { $set: { year: 1971 } });
    await books.updateOne({ author: "Le Guin", title: "Lathe" }, { $inc: { year: 1 } });
    expect(await books.findOne({ _id: 1 })).toMatchObject({ year: 1972 });
    await books.updateMany({ title: "Lathe" }, { $inc: { year: 1 } });
    expect(await books.findOne({ _id: 1 })).toMatchObject({ year: 1973 });
  });

  test("a single delete without the shard key or an exact _id: ShardKeyNotFound (61)", async () => {
    const books = await shardedCollection({ author: 1 });
    await books.insertOne({ _id: 1, author: "Le Guin", title: "Lathe" });
    const error = await serverError(books.deleteOne({ title: "Lathe" }));
    expect(error.code).toBe(61);
    expect(error.message).toMatch(/^A single delete on a sharded collection must contain an exact match on _id/);
    await expect(books.deleteOne({ _id: 1 })).resolves.toMatchObject({ deletedCount: 1 });
  });

  test("findAndModify without the shard key, even by _id: ShardKeyNotFound (61)", async () => {
    const books = await shardedCollection({ author: 1 });
    await books.insertOne({ _id: 1, author: "Le Guin" });
    const error = await serverError(books.findOneAndUpdate({ _id: 1 }, { $set: { year: 1971 } }));
    expect(error).toMatchObject({ code: 61, message: "Query for sharded findAndModify must contain the shard key" });
    await expect(books.findOneAndUpdate({ _id: 1, author: "Le Guin" }, { $set: { year: 1971 } })).resolves.toMatchObject({ _id: 1 });
  });

  test("a change of a document's shard key outside a transaction or retryable write: IllegalOperation (20)", async () => {
    const books = await shardedCollection({ author: 1 });
    await books.insertOne({ _id: 1, author: "Le Guin" });
    // On a standalone the driver sends no txnNumber: every write here is neither retryable nor transactional. The driver
    // answers any IllegalOperation (20) of a write with its own advice about retryable writes, keeping the server's error beside it.
    const error = await serverError(books.updateOne({ _id: 1, author: "Le Guin" }, { $set: { author: "U. K. Le Guin" } }));
    expect(error.errorResponse["originalError"]).toMatchObject({
      code: 20,
      errmsg: "Must run update to shard key field in a multi-statement transaction or with retryWrites: true.",
    });
    await expect(books.updateOne({ _id: 1, author: "Le Guin" }, { $set: { title: "author" } })).resolves.toMatchObject({
      modifiedCount: 1,
    });
  });
});

describe("targeting, counted by shardTargetingStats", () => {
  test("equality, $in and an $or of them on the key's first field reach those values' shards; anything else reaches all", async () => {
    const books = await shardedCollection({ _id: "hashed" });
    await books.insertMany(Array.from({ length: 20 }, (_, id) => ({ _id: id, title: `t${id}` })));
    const stats = await statsAfter(async () => {
      await books.findOne({ _id: 3 });
      await books.find({ _id: { $in: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] } }).toArray();
      await books.find({ title: "t3" }).toArray();
      await books.find({ _id: { $gt: 3 } }).toArray();
      await books.find({ $or: [{ _id: 3 }, { _id: 3, title: "t3" }] }).toArray();
      await books.find({ $or: [{ _id: 3 }, { title: "t4" }] }).toArray();
    });
    // Counts are kept per shard count, not in order: two finds reached one shard, four reached all.
    expect(shardsOf(stats, "find").sort()).toEqual([1, 1, SHARDS, SHARDS, SHARDS, SHARDS]);
  });

  test("a document whose key value is part of _id is targeted by an equality on _id", async () => {
    const claims = await shardedCollection({ "_id.book_id": "hashed" });
    const stats = await statsAfter(async () => {
      await claims.insertOne({ _id: { book_id: 5, purchase_id: "p1" } });
      await claims.findOneAndUpdate({ _id: { book_id: 5, purchase_id: "p1" } }, { $set: { done: true } });
    });
    expect(stats.commands.map(({ command, shards }) => [command, shards])).toEqual([
      ["insert", 1],
      ["findAndModify", 1],
    ]);
  });

  test("a transaction counts the shards its statements reached; the same hashed value lands on the same shard in every collection", async () => {
    const server = await startOfflineServer({ replicaSet: "rs0", shards: SHARDS });
    const client = newClient(server.uri, { discover: true });
    try {
      const admin = client.db("admin");
      for (const [name, key] of [
        ["books", { _id: "hashed" }],
        ["claims", { "_id.book_id": "hashed" }],
      ] as const) {
        await admin.command({ shardCollection: `shop.${name}`, key });
      }
      const shop = client.db("shop");
      await shop.collection<Doc>("books").insertMany([{ _id: 1 }, { _id: 2 }]);
      await admin.command({ shardTargetingStats: 1, reset: true });
      await client.withSession((session) =>
        session.withTransaction(async () => {
          await shop.collection<Doc>("claims").insertOne({ _id: { book_id: 1, purchase_id: "p" } }, { session });
          await shop.collection<Doc>("books").updateOne({ _id: 1 }, { $inc: { sold: 1 } }, { session });
        }),
      );
      await client.withSession((session) =>
        session.withTransaction(async () => {
          await shop.collection<Doc>("books").updateMany({ _id: { $in: [1, 2] } }, { $inc: { sold: 1 } }, { session });
          await shop.collection<Doc>("books").updateMany({}, { $inc: { seen: 1 } }, { session });
        }),
      );
      const stats = (await admin.command({ shardTargetingStats: 1 })) as unknown as Stats;
      expect(stats.transactions).toEqual([
        { db: "shop", outcome: "committed", shards: 1, count: 1 },
        { db: "shop", outcome: "committed", shards: SHARDS, count: 1 },
      ]);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test("a collection not sharded lives on the primary shard: one shard per command", async () => {
    const plain = target.db.collection(`plain_${collections++}`);
    const stats = await statsAfter(async () => {
      await plain.insertOne({ a: 1 });
      await plain.find({}).toArray();
    });
    expect(shardsOf(stats, "insert")).toEqual([1]);
    expect(shardsOf(stats, "find")).toEqual([1]);
  });

  test("shardKeys shard a collection of that name in every database on first use", async () => {
    const server = await startOfflineServer({ shards: SHARDS, shardKeys: { books: { author: 1 } } });
    const client = newClient(server.uri);
    try {
      const books = client.db("anywhere").collection<Doc>("books");
      await books.insertOne({ _id: 1, author: "Le Guin" });
      await expect(books.deleteOne({ title: "x" })).rejects.toMatchObject({ code: 61 });
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
