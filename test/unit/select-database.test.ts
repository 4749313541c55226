import { selectDatabase } from "../../src/db/select-database";

// Loading either throwaway database is what must not happen when MONGODB_URI is set.
jest.mock("@bookstore/offline-mongo", () => {
  throw new Error("the offline stand-in was loaded");
});
jest.mock("mongodb-memory-server", () => {
  throw new Error("mongodb-memory-server was loaded");
});

describe("choosing the database", () => {
  it("uses MONGODB_URI without loading the stand-in or mongodb-memory-server", async () => {
    const database = await selectDatabase("mongodb://db1:27017,db2:27017/?replicaSet=rs0");
    expect(database).toMatchObject({ kind: "external", uri: "mongodb://db1:27017,db2:27017/?replicaSet=rs0" });
    await database.stop();
  });
});
