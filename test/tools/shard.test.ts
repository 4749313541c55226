import { startOfflineServer, type RunningOfflineServer } from "@bookstore/offline-mongo";
import { MongoClient } from "mongodb";
import { shardTool } from "../../src/cli/shard";
import { runTool } from "../../src/cli/tool";
import { EXTRA_SALES } from "../../src/sales/documents";
import { SHARD_KEYS } from "../../src/sales/shard-keys";

// No mongos runs here: this file starts the stand-in routing as one over 4 simulated shards, without keys of its own,
// so that what the command applies is all there is.
let server: RunningOfflineServer;
beforeAll(async () => void (server = await startOfflineServer({ shards: 4, notablescan: true })));
afterAll(() => server.stop());

async function runShard(database: string, uri = server.uri) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runTool(
    shardTool,
    [],
    { MONGODB_URI: uri, MONGODB_DB: database },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { status, out, err: err.join("\n") };
}

describe("npm run shard", () => {
  it("shards every collection the API writes on its declared key, and says so when run again, changing nothing", async () => {
    const first = await runShard("shop");
    const again = await runShard("shop");
    const lines = (outcome: string) => Object.keys(SHARD_KEYS).map((collection) => `${outcome} shop.${collection}`);
    expect(first).toEqual({ status: 0, out: lines("sharded"), err: "" });
    expect(again).toEqual({ status: 0, out: lines("already sharded"), err: "" });
  });

  it("applies keys that route by the book: a single write on extra_sales without the book is refused", async () => {
    await runShard("routed");
    const client = await MongoClient.connect(server.uri);
    try {
      await expect(client.db("routed").collection(EXTRA_SALES).deleteOne({ page: 0 })).rejects.toMatchObject({ code: 61 });
    } finally {
      await client.close();
    }
  });

  it("fails naming the fix when a collection is already sharded on another key", async () => {
    const client = await MongoClient.connect(server.uri);
    try {
      await client.db("admin").command({ shardCollection: `other.${EXTRA_SALES}`, key: { book_id: 1 } });
    } finally {
      await client.close();
    }
    const { status, err } = await runShard("other");
    expect(status).toBe(1);
    expect(err).toMatch(/already sharded on another key\. This command never reshards/);
  });

  it("fails naming the fix on a server that is not a mongos", async () => {
    const plain = await startOfflineServer();
    try {
      const { status, err } = await runShard("shop", plain.uri);
      expect(status).toBe(1);
      expect(err).toMatch(/it is not a mongos\. Point MONGODB_URI at the cluster's mongos\.$/);
    } finally {
      await plain.stop();
    }
  });
});
