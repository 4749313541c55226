import { Long, MongoServerError, type Document } from "mongodb";
import { newClient, serverError, useTestDatabase, type TestDatabase } from "./connect";

// What each command may do (write concern, transactions, retries), as mongod 7.0 declares it, on a
// one-member replica set (MONGODB_REPLICA_SET_URI when set) and a standalone (MONGODB_URI when set).
const replicaSet = useTestDatabase("command_traits_rs", { offlineServer: { replicaSet: "rs0" } });
const standalone = useTestDatabase("command_traits_standalone");

async function collectionWith(database: TestDatabase, ...documents: Document[]): Promise<string> {
  const collection = database.freshCollection();
  if (documents.length > 0) await collection.insertMany(documents);
  return collection.collectionName;
}

describe("a write concern given to a command that takes none", () => {
  it.each([
    ["find", (name: string) => ({ find: name })],
    ["count", (name: string) => ({ count: name })],
    ["listIndexes", (name: string) => ({ listIndexes: name })],
  ])("is refused by %s with 72, as mongod refuses it, on a standalone and a replica set", async (_command, body) => {
    for (const database of [standalone, replicaSet]) {
      const name = await collectionWith(database, { _id: 1 });
      const error = await serverError(database.db.command({ ...body(name), writeConcern: { w: 1 } }));
      expect(error).toMatchObject({ code: 72, codeName: "InvalidOptions", errmsg: "Command does not support writeConcern" });
    }
  });
});

describe("aggregate, which takes a write concern for its output stages", () => {
  it("has it checked on a standalone, which cannot wait for two members (2)", async () => {
    const name = await collectionWith(standalone, { _id: 1 });
    const error = await serverError(standalone.db.command({ aggregate: name, pipeline: [], cursor: {}, writeConcern: { w: 2 } }));
    expect(error).toMatchObject({ code: 2, errmsg: "cannot use 'w' > 1 when a host is not replicated" });
  });

  it("reads without a write concern error on a replica set, having written nothing to wait for", async () => {
    const name = await collectionWith(replicaSet, { _id: 1 });
    const reply = await replicaSet.db.command({ aggregate: name, pipeline: [], cursor: {}, writeConcern: { w: 5 } });
    expect(reply["writeConcernError"]).toBeUndefined();
    expect(reply["cursor"]).toMatchObject({ firstBatch: [{ _id: 1 }] });
  });
});

describe("a command mongod does not run in a transaction", () => {
  it("is refused with mongod's words for count, and the transaction stays open to commit", async () => {
    const name = await collectionWith(replicaSet, { _id: 1 });
    const session = replicaSet.client.startSession();
    session.startTransaction();
    await replicaSet.db.collection<{ _id: number }>(name).insertOne({ _id: 2 }, { session });
    const error = await serverError(replicaSet.db.command({ count: name }, { session }));
    expect(error).toMatchObject({
      code: 263,
      errmsg:
        "Cannot run 'count' in a multi-document transaction. Please see http://dochub.mongodb.org/core/transaction-count for a recommended alternative.",
    });
    await session.commitTransaction();
    await session.endSession();
    expect(await replicaSet.db.collection(name).countDocuments()).toBe(2);
  });

  it("is refused with the generic words for listCollections, and the transaction stays open to commit", async () => {
    const name = await collectionWith(replicaSet);
    const session = replicaSet.client.startSession();
    session.startTransaction();
    await replicaSet.db.collection<{ _id: number }>(name).insertOne({ _id: 1 }, { session });
    const error = await serverError(replicaSet.db.command({ listCollections: 1 }, { session }));
    expect(error).toMatchObject({ code: 263, errmsg: "Cannot run 'listCollections' in a multi-document transaction." });
    await session.commitTransaction();
    await session.endSession();
    expect(await replicaSet.db.collection(name).countDocuments()).toBe(1);
  });
});

describe("a statement that cannot start a transaction", () => {
  /** Sends `body` as the first statement of a transaction of a fresh session, then tries to commit the transaction. */
  async function asFirstStatement(body: Document): Promise<{ refusal: MongoServerError; commit: MongoServerError }> {
    const session = replicaSet.client.startSession();
    session.startTransaction();
    // Transactions end on admin; killCursors names a collection of the test's database.
    const db = "killCursors" in body ? replicaSet.db : replicaSet.db.admin();
    try {
      const refusal = await serverError(db.command(body, { session }));
      return { refusal, commit: await serverError(session.commitTransaction()) };
    } finally {
      await session.endSession();
    }
  }

  it.each([
    [
      "killCursors",
      { killCursors: "none", cursors: [] } as Document,
      "Cannot run killCursors as the first operation in a multi-document transaction.",
    ],
    ["commitTransaction", { commitTransaction: 1 }, "Cannot start a transaction with a commit"],
    ["abortTransaction", { abortTransaction: 1 }, "Cannot start a transaction with an abort"],
  ])("%s is refused there (263) and starts nothing to commit", async (_command, body, errmsg) => {
    const { refusal, commit } = await asFirstStatement(body);
    expect(refusal).toMatchObject({ code: 263, errmsg });
    expect(commit.code).toBe(251);
  });
});

describe("a write concern on a statement inside a transaction", () => {
  it("is refused with mongod's words (72), not a driver's", async () => {
    const name = await collectionWith(replicaSet);
    const session = replicaSet.client.startSession();
    session.startTransaction();
    await replicaSet.db.collection<{ _id: number }>(name).insertOne({ _id: 1 }, { session });
    const insert = { insert: name, documents: [{ _id: 2 }], writeConcern: { w: 1 } };
    const error = await serverError(replicaSet.db.command(insert, { session }));
    expect(error).toMatchObject({ code: 72, errmsg: "writeConcern is not allowed within a multi-statement transaction" });
    await session.endSession();
  });
});

describe("a retryable write (a txnNumber outside a transaction)", () => {
  /**
   * Runs `body` as a retryable write numbered `txnNumber`, through a client of its own: its session, numbered far
   * above what the driver counts, must not return to the pool the other tests' writes take sessions from.
   */
  async function retryable(body: Document, txnNumber: number): Promise<Document> {
    const client = newClient(replicaSet.uri, { discover: true });
    try {
      return await client.withSession((session) =>
        client.db(replicaSet.db.databaseName).command({ ...body, txnNumber: Long.fromNumber(txnNumber) }, { session }),
      );
    } finally {
      await client.close();
    }
  }

  it("refuses a multi-document update statement (72), as a write error of that statement only", async () => {
    const name = await collectionWith(replicaSet, { _id: 1, n: 0 }, { _id: 2, n: 0 });
    const updates = [
      { q: { _id: 1 }, u: { $set: { n: 1 } } },
      { q: {}, u: { $set: { n: 2 } }, multi: true },
    ];
    const reply = await retryable({ update: name, updates }, 4_000_000);
    expect(reply).toMatchObject({
      ok: 1,
      n: 1,
      writeErrors: [{ index: 1, code: 72, errmsg: "Cannot use (or request) retryable writes with multi=true" }],
    });
    expect(await replicaSet.db.collection(name).find().toArray()).toEqual([
      { _id: 1, n: 1 },
      { _id: 2, n: 0 },
    ]);
  });

  it("refuses a delete of every match (limit 0) the same way", async () => {
    const name = await collectionWith(replicaSet, { _id: 1 }, { _id: 2 }, { _id: 3 });
    const deletes = [
      { q: { _id: 1 }, limit: 1 },
      { q: {}, limit: 0 },
    ];
    const reply = await retryable({ delete: name, deletes }, 4_000_000);
    expect(reply).toMatchObject({
      ok: 1,
      n: 1,
      writeErrors: [{ index: 1, code: 72, errmsg: "Cannot use (or request) retryable writes with limit=0" }],
    });
    expect(await replicaSet.db.collection(name).countDocuments()).toBe(2);
  });
});
