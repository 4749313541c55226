import { StorefrontClient } from "../../examples/storefront/client";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
  await seedBook(database.db, "1", customers(80));
  await seedBook(database.db, "2", customers(3));
  await seedBook(database.db, "3", customers(2, 1));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

describe("the example storefront's product page", () => {
  it("shows the book, its newest buyers and what its customers also bought", async () => {
    const { book } = await new StorefrontClient(server.url).productPage("1", 3, 5);
    expect(book).toMatchObject({ databaseId: "1", title: "Seeded 1", purchaseCount: 80 });
    expect(book!.customersPurchased.edges.map((edge) => edge.node.databaseId)).toEqual(customers(3, 77));
    expect(book!.alsoBought.map(({ book: recommended, sharedBuyers }) => [recommended.databaseId, sharedBuyers])).toEqual([
      ["2", 3],
      ["3", 2],
    ]);
  });
});
