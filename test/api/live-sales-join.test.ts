import type { Document } from "mongodb";
import { connectToDatabase, type DatabaseConnection } from "../../src/db/connection";
import type { RunningServer } from "../../src/graphql/transport/server";
import { namedApplication } from "../support/application-name";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { postOperation, startTestHttpServer } from "../support/http";
import { subscribe, subscriptionClient, type Subscription } from "../support/subscriptions";
import { configuredTokens, tokenSpec } from "../support/tokens";

/**
 * A subscriber that joins a running shared execution starts from no value older than a write acknowledged
 * before it joined (docs/design/live-sales.md, shared executions), even while that write's change has not come through this
 * process's change stream: the stream is held back with mongod's failCommand fail point on its aggregate and
 * getMore, scoped to the API's client by its application name, so that nothing but the join's read can show the purchase.
 */
const writer = tokenSpec("join-writer", ["catalog:write"]);
const SETTINGS = { outlierThreshold: 3, extraSalesPageSize: 4 };
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) { recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { book { purchaseCount } } }`;
const BOOK_SALES = `subscription Joined($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;
/** The API's client names itself, so that the fail point holds back its change stream and no one else's commands. */
const API_APP_NAME = "live-sales-join-api";
const BESTSELLERS = `subscription JoinedList($top: Int!) { bestsellers(top: $top) { databaseId purchaseCount } }`;

let database: TestDatabase;
let api: DatabaseConnection;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  api = await connectToDatabase(process.env.TEST_REPLICA_SET_URI!, database.db.databaseName, namedApplication(API_APP_NAME));
  server = await startTestHttpServer(api.db, { settings: SETTINGS, apiTokens: configuredTokens(writer) });
});
afterEach(() => holdChangeStream("off"));
afterAll(async () => {
  await server.stop();
  await api.close();
  await database.close();
});

/** Fails the API's aggregates and getMores, its change stream's commands ("off": lets them run); the test's own client is left alone. */
function holdChangeStream(mode: Document | string): Promise<Document> {
  const data = { failCommands: ["aggregate", "getMore"], errorCode: 2, appName: API_APP_NAME };
  return database.client.db("admin").command({ configureFailPoint: "failCommand", mode, data });
}

/** Resolves once the fail point has failed one of the stream's commands: a getMore in flight when it was set may still have delivered. */
async function changeStreamHeld(): Promise<void> {
  const { count } = (await holdChangeStream("alwaysOn")) as { count: number };
  while (((await holdChangeStream("alwaysOn")) as { count: number }).count === count)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

async function buy(bookId: string, customerId: string): Promise<void> {
  const answer = await postOperation(server.url, RECORD, { bookId, customerId }, writer);
  expect(answer.json?.errors).toBeUndefined();
}

interface Sales {
  bookSales: { databaseId: string; purchaseCount: number };
}
interface List {
  bestsellers: { databaseId: string; purchaseCount: number }[];
}

const countOf = (value: Awaited<ReturnType<Subscription<Sales>["next"]>>) => value.data?.bookSales.purchaseCount;
const listOf = (value: Awaited<ReturnType<Subscription<List>["next"]>>) =>
  value.data?.bestsellers.map((book) => `${book.databaseId}:${book.purchaseCount}`);

it("starts a joining bookSales subscriber from a purchase acknowledged before it joined, and hands that value to the subscribers already there", async () => {
  await seedBook(database.db, "joined", customers(1), SETTINGS);
  const clients = [subscriptionClient(server.url), subscriptionClient(server.url)];
  const first = subscribe<Sales>(clients[0]!, BOOK_SALES, { ids: ["joined"] });
  expect(countOf(await first.next())).toBe(1);

  await changeStreamHeld();
  await buy("joined", "while-held");
  const second = subscribe<Sales>(clients[1]!, BOOK_SALES, { ids: ["joined"] });
  expect(countOf(await second.next())).toBe(2);
  expect(countOf(await first.next())).toBe(2);

  // Once the stream comes back, the held change (no newer than what was sent) sends nothing; the next purchase comes as usual.
  await holdChangeStream("off");
  await buy("joined", "after");
  for (const subscription of [first, second]) expect(countOf(await subscription.next())).toBe(3);
  for (const subscription of [first, second]) subscription.stop();
  await Promise.all(clients.map((client) => client.dispose()));
});

it("starts a joining bestsellers subscriber from the list as a purchase acknowledged before it joined left it", async () => {
  await seedBook(database.db, "list-leader", customers(2), SETTINGS);
  await seedBook(database.db, "list-climber", customers(1), SETTINGS);
  const clients = [subscriptionClient(server.url), subscriptionClient(server.url)];
  const first = subscribe<List>(clients[0]!, BESTSELLERS, { top: 100 });
  const before = listOf(await first.next());
  expect(before).toContain("list-climber:1");

  await changeStreamHeld();
  await buy("list-climber", "while-held-1");
  await buy("list-climber", "while-held-2");
  const second = subscribe<List>(clients[1]!, BESTSELLERS, { top: 100 });
  const joined = listOf(await second.next());
  expect(joined).toContain("list-climber:3");
  expect(listOf(await first.next())).toEqual(joined);

  await holdChangeStream("off");
  await buy("list-climber", "after");
  for (const subscription of [first, second]) expect(listOf(await subscription.next())).toContain("list-climber:4");
  for (const subscription of [first, second]) subscription.stop();
  await Promise.all(clients.map((client) => client.dispose()));
});
