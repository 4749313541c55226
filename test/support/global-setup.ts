import { selectDatabase, type SelectedDatabase } from "../../src/db/select-database";

declare global {
  // Handed from setup to teardown, which jest runs in the same process.
  var testDatabase: SelectedDatabase | undefined;
}

/** Chooses the one database the whole run uses, says which, and hands its URI to every test worker. */
export default async function globalSetup(): Promise<void> {
  // The stand-in refuses, as mongod's notablescan does, any query only a collection scan could answer:
  // a product query that would scan a whole collection fails its test. OFFLINE_MONGO_NOTABLESCAN=0 turns it off.
  process.env.OFFLINE_MONGO_NOTABLESCAN ??= "1";
  const database = await selectDatabase(process.env.MONGODB_URI);
  globalThis.testDatabase = database;
  process.env.TEST_MONGODB_URI = database.uri;
  process.env.TEST_DATABASE_KIND = database.kind;
  console.log(`\nTests run against ${database.description}\n`);
}
