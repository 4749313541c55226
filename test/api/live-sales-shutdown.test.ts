import { createBook } from "../../src/sales/books";
import { startApiProcess } from "../support/api-process";
import { openTestDatabase } from "../support/database";
import { subscribe, subscriptionClient, subscriptionsOpen } from "../support/subscriptions";

/** Subscriptions held open when a supervisor stops the process: 50 connections of 20 each. */
const CONNECTIONS = 50;
const PER_CONNECTION = 20;
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { purchaseCount } }`;

it("ends cleanly on SIGTERM with 1,000 subscriptions open: each connection closed with 1001, the process exiting 0", async () => {
  const database = await openTestDatabase({ replicaSet: true });
  await createBook(database.db, { id: "held", title: "Held", author: "A" }, { extraSalesPageSize: 10 });
  const api = await startApiProcess("src/cli/start.ts", {
    MONGODB_URI: process.env.TEST_REPLICA_SET_URI!,
    MONGODB_DB: database.db.databaseName,
    NODE_ENV: "development",
    // Every connection comes from this machine's one address.
    CONNECTIONS_PER_ADDRESS: String(CONNECTIONS),
  });
  try {
    const clients = Array.from({ length: CONNECTIONS }, () => subscriptionClient(api.url));
    const subscriptions = clients.flatMap((client) =>
      Array.from({ length: PER_CONNECTION }, () => subscribe(client, BOOK_SALES, { ids: ["held"] })),
    );
    await subscriptionsOpen(api.url, "bookSales", CONNECTIONS * PER_CONNECTION);

    const status = await api.stop();
    expect(status).toBe(0);
    expect(await api.logged(/shutdown complete/)).toBeDefined();
    const endings = await Promise.all(subscriptions.map((subscription) => subscription.ended));
    expect(new Set(endings.map((ending) => (ending as { code?: number }).code))).toEqual(new Set([1001]));
    await Promise.all(clients.map((client) => client.dispose()));
  } finally {
    await database.close();
  }
});
