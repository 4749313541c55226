import { createServer } from "node:net";
import { once } from "node:events";
import { StorefrontClient } from "../../examples/storefront/client";
import { explainFailure, runStorefront } from "../../examples/storefront/run";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook, storedPurchases } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { configuredTokens, tokenSpec } from "../support/tokens";

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

describe("the storefront example (npm run example)", () => {
  it("prints a catalog page and the best seller's buyers, and a checkout retried with its purchaseId buys once", async () => {
    await seedBook(database.db, "1", customers(3));
    await seedBook(database.db, "2", customers(60));
    const lines: string[] = [];

    await runStorefront(new StorefrontClient(server.url), (line) => lines.push(line));

    expect(lines[0]).toBe("Catalog: 2 books; the first 2, each with up to 3 buyers:");
    expect(lines[2]).toBe("  2      Seeded 2 by A (undated): 60 sold; buyers user00, user01, user02");
    expect(lines[3]).toBe(`Buyers of "Seeded 2": 60 in all, the first 10: ${customers(10).join(", ")}`);
    expect(lines[4]).toMatch(/^Checkout order-.*-line-1: stored in EXTRA_SALES, the book has sold 61$/);
    expect(lines[5]).toBe("Same checkout again: replayed true, stored in EXTRA_SALES, still 61 sold");
    expect((await storedPurchases(database.db, "2")).filter((id) => id === "storefront-example")).toHaveLength(1);
  });

  it("says the token was refused, and which scopes it needs, when the API wants a token", async () => {
    const guarded = await startTestHttpServer(database.db, { apiTokens: configuredTokens(tokenSpec("storefront", ["purchases:read"])) });
    try {
      const failure = await runStorefront(new StorefrontClient(guarded.url), () => undefined).catch((error: unknown) => error);

      expect(explainFailure(failure, guarded.url)).toMatch(
        /refused the example \(UNAUTHENTICATED: .*Set STOREFRONT_TOKEN to a token with purchases:read and catalog:write/,
      );
    } finally {
      await guarded.stop();
    }
  });

  it("asks whether the API is running only when nothing answers", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/graphql`;
    const failure = await runStorefront(new StorefrontClient(url), () => undefined).catch((error: unknown) => error);

    expect(explainFailure(failure, url)).toMatch(/^No answer from .*ECONNREFUSED.*Is the API running \(npm start\)\?$/);
  });
});

/** A port nothing listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, "close");
  return port;
}
