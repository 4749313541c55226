import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { subscribe, subscriptionClient } from "../support/subscriptions";

// graphql's own `getVariableValues`, with who called it: every module that imports it from "graphql" calls this one.
const callers: string[] = [];
jest.mock("graphql", () => {
  const actual = jest.requireActual<typeof import("graphql")>("graphql");
  const counted: typeof actual.getVariableValues = (...args) => {
    callers.push(callerOf(new Error().stack ?? ""));
    return actual.getVariableValues(...args);
  };
  return { ...actual, getVariableValues: counted };
});

/** The file of the first frame outside this test: this API's module, or the package, that coerced the variables. */
function callerOf(stack: string): string {
  const frame = stack.split("\n").find((line) => /\/(src|node_modules)\//.test(line) && !line.includes("subscription-variables.test"));
  const file = frame?.match(/\/((src\/[^:]+)|node_modules\/([^/]+))/);
  return file?.[2] ?? file?.[3] ?? "unknown";
}

/**
 * A subscription's variables are coerced once, for the checks that read them (input, cost, access), the key of the
 * shared execution it joins and that execution; not once for each.
 */
const BOOK_SALES = `subscription Sales($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  server = await startTestHttpServer(database.db);
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

it("coerces a subscription's variables once for its checks, its shared execution's key and its execution", async () => {
  await seedBook(database.db, "coerced", customers(2));
  const client = subscriptionClient(server.url);
  callers.length = 0;
  const sales = subscribe<{ bookSales: { databaseId: string; purchaseCount: number } }>(client, BOOK_SALES, { ids: "coerced" });
  // A single id for a list of one: the value shows the variables were coerced as the operation declares them.
  expect((await sales.next()).data).toEqual({ bookSales: { databaseId: "coerced", purchaseCount: 2 } });
  // The one coercion, then graphql-query-complexity's own (one for each estimate); graphql-js' execution coerces through
  // its own module.
  expect(callers).toEqual(["src/graphql/execution/variables.ts", "graphql-query-complexity", "graphql-query-complexity"]);
  sales.stop();
  await client.dispose();
});
