import { MongoClient, type Db } from "mongodb";
import { createRequestServices } from "../../src/sales/request-services";
import { RecentSalesStats } from "../../src/sales/stats";
import { TEST_SETTINGS } from "../support/api";

// Issue 39: a request that reads nothing (`{ __typename }`, a cached answer) builds no pool share, loaders or
// services; they are built on first use, also after Apollo Server copies the context as it does for every request.

/** A database no command is ever sent to, which records every property the services read of it. */
function watchedDb(): { db: Db; read: string[]; close: () => Promise<void> } {
  const client = new MongoClient("mongodb://127.0.0.1:1/");
  const real = client.db("request_services");
  const read: string[] = [];
  const db = new Proxy(real, {
    get(target, property) {
      read.push(String(property));
      return Reflect.get(target, property, target) as unknown;
    },
  });
  return { db, read, close: () => client.close() };
}

/** What Apollo Server does with the context a request's `context` function returns, before any plugin sees it. */
const copiedAsApolloDoes = <T extends object>(context: T): T =>
  Object.assign(Object.create(Object.getPrototypeOf(context) as object) as T, context);

describe("a request's services", () => {
  it("read nothing of the database until a resolver uses one, however often the request is weighed or its context copied", async () => {
    const { db, read, close } = watchedDb();
    try {
      const salesStats = new RecentSalesStats(db);
      read.length = 0;
      const services = copiedAsApolloDoes(createRequestServices(db, { settings: TEST_SETTINGS, salesStats }));
      services.weigh({ cost: 1, documents: 0 });
      expect(read).toEqual([]);
      expect(services.loaders).toBe(services.loaders);
      expect(services.catalog).toBe(services.catalog);
      expect(read).toContain("client");
    } finally {
      await close();
    }
  });
});
