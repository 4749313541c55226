import { MongoClient, type Db } from "mongodb";
import { ApolloServer } from "@apollo/server";
import { createServerState, releaseServicesPlugin, type GraphQLContext } from "../../src/graphql/execution/context";
import { createSalesLoaders } from "../../src/sales/loaders";
import { createPoolShare } from "../../src/sales/pool-share";
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

  it("are let go of once the answer is ready, and refuse a use after that", async () => {
    const { db, close } = watchedDb();
    try {
      const services = copiedAsApolloDoes(createRequestServices(db, { settings: TEST_SETTINGS, salesStats: new RecentSalesStats(db) }));
      expect(services.loaders).toBe(services.loaders);
      services.release();
      expect(() => services.loaders).toThrow(/after its answer was ready/);
      expect(() => services.catalog).toThrow(/after its answer was ready/);
    } finally {
      await close();
    }
  });

  it("are released by the last plugin when Apollo sends the answer", async () => {
    const { db, close } = watchedDb();
    try {
      const services = createRequestServices(db, { settings: TEST_SETTINGS, salesStats: new RecentSalesStats(db) });
      // Apollo releases its copy of the context, an object of the same prototype.
      const released = jest.spyOn(Object.getPrototypeOf(services) as { release(): void }, "release");
      const server = new ApolloServer<GraphQLContext>({ typeDefs: "type Query { ok: Boolean }", plugins: [releaseServicesPlugin()] });
      await server.start();
      await server.executeOperation({ query: "{ ok }" }, { contextValue: services as GraphQLContext });
      await server.stop();
      expect(released).toHaveBeenCalledTimes(1);
      released.mockRestore();
    } finally {
      await close();
    }
  });
});

// V8's scavenges keep an object made with accessors of its own (an object literal's `get x()`) alive, with all its
// closures hold, until the next full collection: a request's objects that had them outlived the young generation.
describe("a request's per-request objects", () => {
  const ownAccessors = (value: object) =>
    Object.entries(Object.getOwnPropertyDescriptors(value))
      .filter(([, descriptor]) => descriptor.get ?? descriptor.set)
      .map(([name]) => name);

  it("have no accessors of their own: the pool share, the loaders, the services", async () => {
    const { db, close } = watchedDb();
    try {
      const services = createRequestServices(db, { settings: TEST_SETTINGS, salesStats: new RecentSalesStats(db) });
      const share = createPoolShare(5);
      expect(ownAccessors(share)).toEqual([]);
      expect(share.held).toBe(0);
      expect(ownAccessors(createSalesLoaders(db, { share }))).toEqual([]);
      expect(ownAccessors(services.loaders)).toEqual([]);
      expect(ownAccessors(services)).toEqual([]);
    } finally {
      await close();
    }
  });

  it("hold a request's context value's parts in one holder Apollo's copy shares, emptied when the copy is released", async () => {
    const { db, close } = watchedDb();
    const server = createServerState({ db });
    try {
      const context = server.contextFor(TEST_SETTINGS, { kind: "open" });
      const copy = copiedAsApolloDoes(context);
      expect(copy.principal).toEqual({ kind: "open" });
      expect(copy.purchases).toBe(context.purchases);
      expect(copy.loaders).toBe(context.loaders);
      copy.release();
      // Apollo keeps its copy reachable past the scavenges: what the copy held must go with the release, the original's too.
      for (const held of [copy, context]) {
        expect(() => held.principal).toThrow(/after its answer was ready/);
        expect(() => held.purchases).toThrow(/after its answer was ready/);
        expect(() => held.settings).toThrow(/after its answer was ready/);
        expect(() => held.loaders).toThrow(/after its answer was ready/);
      }
    } finally {
      await server.stop();
      await close();
    }
  });

  it("make nothing for a request's purchases until it records one: no closure, no list", async () => {
    const { db, close } = watchedDb();
    const server = createServerState({ db });
    try {
      const { purchases } = server.contextFor(TEST_SETTINGS, { kind: "open" });
      const own = Object.values(Object.getOwnPropertyDescriptors(purchases));
      expect(own.filter((descriptor) => descriptor.get ?? descriptor.set ?? typeof descriptor.value === "function")).toEqual([]);
      expect(own.filter((descriptor) => Array.isArray(descriptor.value))).toEqual([]);
      expect(purchases.writeSizes).toEqual([]);
    } finally {
      await server.stop();
      await close();
    }
  });
});
