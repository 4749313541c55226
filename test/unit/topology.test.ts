import { offersTransactions, usesTransactions } from "../../src/db/topology";

// hello replies as mongod 7.0 sends them, cut to the fields that tell deployments apart.
const STANDALONE = { isWritablePrimary: true, maxWireVersion: 21, logicalSessionTimeoutMinutes: 30, ok: 1 };
const REPLICA_SET_PRIMARY = { ...STANDALONE, setName: "rs0", setVersion: 1, hosts: ["db1:27017", "db2:27017"], primary: "db1:27017" };
const REPLICA_SET_SECONDARY = { ...REPLICA_SET_PRIMARY, isWritablePrimary: false, secondary: true };
const MONGOS = { ...STANDALONE, msg: "isdbgrid" };

describe("choosing the transactional path from the hello reply", () => {
  it.each([
    ["a replica set primary", REPLICA_SET_PRIMARY],
    ["a replica set secondary", REPLICA_SET_SECONDARY],
    ["a mongos", MONGOS],
  ])("takes %s as offering transactions", async (_case, hello) => {
    expect(offersTransactions(hello)).toBe(true);
    expect(await usesTransactions("auto", async () => hello)).toBe(true);
  });

  it("takes a standalone (and the offline stand-in, which answers as one) as offering none", async () => {
    expect(offersTransactions(STANDALONE)).toBe(false);
    expect(await usesTransactions("auto", async () => STANDALONE)).toBe(false);
  });

  it("does not take a setName that is not a name, nor another msg, as a replica set or mongos", () => {
    expect(offersTransactions({ ...STANDALONE, setName: null })).toBe(false);
    expect(offersTransactions({ ...STANDALONE, msg: "isdbgrid-not" })).toBe(false);
  });

  it("never uses transactions when PURCHASE_TRANSACTIONS is off, whatever the deployment offers, and never asks it", async () => {
    for (const hello of [REPLICA_SET_PRIMARY, MONGOS, STANDALONE]) {
      const askHello = jest.fn(async () => hello);
      expect(await usesTransactions("off", askHello)).toBe(false);
      expect(askHello).not.toHaveBeenCalled();
    }
  });
});
