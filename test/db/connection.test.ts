import { randomBytes } from "node:crypto";
import { startOfflineServer, type RunningOfflineServer } from "@bookstore/offline-mongo";
import { MongoClient, type CommandSucceededEvent } from "mongodb";
import { connectToDatabase, openDatabase } from "../../src/db/connection";
import { ensureSalesIndexes } from "../../src/sales/indexes";

/** A logger that keeps each line's level and message, for asserting what an operator would read. */
function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (fieldsOrMessage: unknown, message?: string) =>
    void lines.push({ level, message: typeof fieldsOrMessage === "string" ? fieldsOrMessage : (message ?? "") });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

const uri = () => process.env.TEST_MONGODB_URI ?? "";
const freshName = () => `test_${randomBytes(6).toString("hex")}`;

async function openUntilReady(name: string) {
  const { lines, logger } = recordingLogger();
  const live = openDatabase(uri(), name, { ensureIndexes: ensureSalesIndexes, logger });
  await live.ready();
  await live.close();
  return lines.filter(({ level }) => level !== "debug");
}

describe("the index check at start-up", () => {
  let client: MongoClient;
  beforeAll(async () => void (client = await MongoClient.connect(uri())));
  afterAll(() => client.close());

  it("creates a new database's indexes with an info line, since every first start does", async () => {
    const name = freshName();
    try {
      expect(await openUntilReady(name)).toEqual([
        { level: "info", message: expect.stringMatching(/^created the \d+ indexes of a new database$/) },
      ]);
    } finally {
      await client.db(name).dropDatabase();
    }
  });

  it("warns when documents were stored without an index the domain needs", async () => {
    const name = freshName();
    try {
      await openUntilReady(name);
      await client
        .db(name)
        .collection("sales")
        .insertOne({ _id: "1" as never, title: "Stored before" });
      await client.db(name).collection("sales").dropIndex("has_extras_1");

      expect(await openUntilReady(name)).toEqual([{ level: "warn", message: "database indexes were missing and have been created" }]);
    } finally {
      await client.db(name).dropDatabase();
    }
  });
});

describe("the clients the API opens", () => {
  // Issue 39: the driver's own Sets of sessions and cursors, long-lived and changed by every read, kept each read's
  // cursor, session and reply past the scavenges until a full collection (docs/benchmarks/analysis.md).
  it("track their sessions and cursors in renewing sets, and still end the sessions and let go of both when they close", async () => {
    const name = freshName();
    const opened = await connectToDatabase(uri(), name);
    const tracked = (opened.client as unknown as { s: { activeSessions: Set<unknown>; activeCursors: Set<unknown> } }).s;
    // The driver's own, as patches/mongodb+7.9.0.patch makes them.
    expect([tracked.activeSessions.constructor.name, tracked.activeCursors.constructor.name]).toEqual(["RenewingSet", "RenewingSet"]);
    const session = opened.client.startSession();
    // Two documents read one a batch: the cursor stays open on the server after its first.
    await opened.db.collection("things").insertMany([{ n: 1 }, { n: 2 }]);
    const cursor = opened.db.collection("things").find({}, { batchSize: 1 });
    await cursor.hasNext();
    expect([tracked.activeSessions.has(session), tracked.activeCursors.has(cursor)]).toEqual([true, true]);
    await opened.db.dropDatabase();
    await opened.close();
    expect([session.hasEnded, tracked.activeSessions.size, tracked.activeCursors.size]).toEqual([true, 0, 0]);
  });

  // Issue 56: with command monitoring on (the API counts each request's commands), the driver deserialized every reply
  // for its succeeded event, which nothing in the API reads, once more than the operation itself: 3.7 % of a 5-book
  // listing's CPU (docs/benchmarks/analysis.md). patches/mongodb+7.9.0.patch defers it to the first read of `reply`.
  it("deserialize a command's reply for its monitoring event only when the event's reply is read, and then in full", async () => {
    const opened = await connectToDatabase(uri(), freshName(), { monitorCommands: true });
    const succeeded: CommandSucceededEvent[] = [];
    opened.client.on("commandSucceeded", (event) => succeeded.push(event));
    try {
      await opened.db.collection("things").insertMany([{ n: 1 }, { n: 2 }]);
      const read = await opened.db
        .collection("things")
        .find({}, { projection: { _id: 0 }, sort: { n: 1 } })
        .toArray();
      const find = succeeded.find((event) => event.commandName === "find")!;
      expect(Object.getOwnPropertyDescriptor(find, "reply")).toBeUndefined();
      expect(find.reply).toMatchObject({ ok: 1, cursor: { firstBatch: read } });
      expect(read).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      await opened.db.dropDatabase();
      await opened.close();
    }
  });
});

describe("a MONGODB_URI whose replicaSet is not the set's name", () => {
  // Servers of their own: a replica set named rs0, and a server in no set.
  let replicaSet: RunningOfflineServer;
  let standalone: RunningOfflineServer;
  beforeAll(
    async () => void ([replicaSet, standalone] = await Promise.all([startOfflineServer({ replicaSet: "rs0" }), startOfflineServer()])),
  );
  afterAll(() => Promise.all([replicaSet.stop(), standalone.stop()]));

  const naming = (server: RunningOfflineServer, name: string) => `${server.uri.replace(/\/?$/, "/")}?replicaSet=${name}`;
  const host = (server: RunningOfflineServer) => new URL(server.uri).host;

  it("fails a tool's connection naming the set's name and the fix, not only the server selection's time-out", async () => {
    await expect(connectToDatabase(naming(replicaSet, "shop"), freshName(), { serverSelectionTimeoutMS: 300 })).rejects.toThrow(
      `(Server selection timed out after 300 ms): the server at ${host(replicaSet)} belongs to the replica set "rs0", but MONGODB_URI asks for replicaSet=shop: ` +
        "compare the replicaSet in MONGODB_URI with the set's name (rs.conf()._id) and make them equal, e.g. replicaSet=rs0.",
    );
  });

  it("fails on a server in no set saying to drop replicaSet or run a set", async () => {
    await expect(connectToDatabase(naming(standalone, "rs0"), freshName(), { serverSelectionTimeoutMS: 300 })).rejects.toThrow(
      `the server at ${host(standalone)} is no replica set member (a standalone mongod or a mongos), but MONGODB_URI asks for replicaSet=rs0: remove replicaSet`,
    );
  });

  it("keeps the generic advice when the name is right and the server is away", async () => {
    const away = await startOfflineServer({ replicaSet: "rs0" });
    await away.stop();
    await expect(connectToDatabase(naming(away, "rs0"), freshName(), { serverSelectionTimeoutMS: 300 })).rejects.toThrow(
      /: check that it is running and that MONGODB_URI is right\.$/,
    );
  });

  it("names the cause in the start-up's warning while it waits for the database", async () => {
    const { lines, logger } = recordingLogger();
    const live = openDatabase(naming(replicaSet, "shop"), freshName(), {
      ensureIndexes: ensureSalesIndexes,
      logger,
      serverSelectionTimeoutMS: 300,
    });
    try {
      await until(() => lines.some(({ level }) => level === "warn"));
    } finally {
      await live.close();
    }
    expect(lines.find(({ level }) => level === "warn")?.message).toContain(
      `belongs to the replica set "rs0", but MONGODB_URI asks for replicaSet=shop`,
    );
  });
});

/** Resolves once `done` holds, looking every 50 ms. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
}
