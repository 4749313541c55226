import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { openDatabase } from "../../src/db/connection";
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
