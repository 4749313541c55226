import { startOfflineServer } from "@bookstore/offline-mongo";
import { MongoBinary } from "mongodb-memory-server";
import { MongoClient } from "mongodb";
import { selectReplicaSet, type SelectedDatabase } from "../../src/db/select-database";

/** A run's database that offers no transactions: a standalone, as mongodb-memory-server's default or the stand-in's. */
async function standaloneRunDatabase(): Promise<SelectedDatabase> {
  const standalone = await startOfflineServer();
  return { kind: "offline-server", uri: standalone.uri, description: "a standalone", stop: () => standalone.stop() };
}

/** A replica set member names its set in hello; a standalone does not. */
async function replicaSetNameAt(uri: string): Promise<unknown> {
  const client = await MongoClient.connect(uri, { directConnection: true });
  try {
    return (await client.db("admin").command({ hello: 1 })).setName;
  } finally {
    await client.close();
  }
}

describe("selectReplicaSet beside a standalone", () => {
  it("starts a one-member replica set as selectDatabase would (a real mongod when its binary is at hand) and says which", async () => {
    const mongodAtHand = await MongoBinary.getPath().then(
      () => true,
      () => false,
    );
    const runDatabase = await standaloneRunDatabase();
    const replicaSet = await selectReplicaSet(runDatabase, undefined);
    try {
      expect(replicaSet.uri).not.toBe(runDatabase.uri);
      expect(await replicaSetNameAt(replicaSet.uri)).toEqual(expect.any(String));
      expect(replicaSet).toMatchObject(
        mongodAtHand
          ? { kind: "mongodb-memory-server", description: expect.stringMatching(/^a real mongod .* as a one-member replica set/) }
          : {
              kind: "offline-server",
              description: expect.stringMatching(/stand-in as a one-member replica set .* because no mongod could be had/),
            },
      );
    } finally {
      await replicaSet.stop();
      await runDatabase.stop();
    }
  });
});
