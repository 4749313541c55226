import { startOfflineServer, type RunningOfflineServer } from "@bookstore/offline-mongo";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { SHARD_KEYS } from "../../src/sales/shard-keys";
import { graphql } from "../__generated__";
import { openTestApi, type TestApi } from "../support/api";
import { addBook, customers, recordPurchases } from "../support/factories";

/**
 * The promise of docs/operations/sharding.md: on a cluster sharded on the declared keys, every command of a
 * purchase (plain and keyed, below and past the threshold), of `book(id)`, of a buyers window at any depth and
 * of `_entities` for a book goes to one shard, and every purchase's transaction touches one shard. No mongos runs
 * here, so this file starts its own stand-in routing as a mongos over 4 simulated shards, a replica set so that
 * keyed purchases are transactions, and reads its counts (`shardTargetingStats`).
 */
const SHARDS = 4;
const settings = { outlierThreshold: 3, extraSalesPageSize: 2 };

const KEYED_PURCHASE = graphql(`
  mutation ShardTargetedKeyedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {
      storedIn
    }
  }
`);

const BOOK_WITH_BUYERS = graphql(`
  query ShardTargetedBook($id: ID!, $first: Int, $after: String) {
    book(id: $id) {
      title
      purchaseCount
      customersPurchased(first: $first, after: $after) {
        totalCount
        edges {
          node {
            id: databaseId
          }
        }
      }
    }
  }
`);

// _entities is the gateway's field, absent from the schema codegen reads.
const BOOK_ENTITY = `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Book { title purchaseCount } } }`;

interface TargetingStats {
  commands: { namespace: string; command: string; shards: number; count: number }[];
  transactions: { db: string; outcome: string; shards: number; count: number }[];
}

/** How the commands and transactions of `run` on this test's database were routed. */
interface Routing {
  /** Every command that reached other than one shard: "find extra_sales on 4 shards". */
  notOneShard: string[];
  /** Commands routed to one shard. */
  oneShard: number;
  /** The number of shards of each transaction that ended. */
  transactionShards: number[];
}

let server: RunningOfflineServer;
let api: TestApi;
beforeAll(async () => {
  server = await startOfflineServer({ replicaSet: "rs0", shards: SHARDS, shardKeys: { ...SHARD_KEYS }, notablescan: true });
  api = await openTestApi({ uri: server.uri, settings });
});
afterAll(async () => {
  await api.close();
  await server.stop();
});

async function routingOf(run: () => Promise<unknown>): Promise<Routing> {
  const admin = api.client.db("admin");
  await admin.command({ shardTargetingStats: 1, reset: true });
  await run();
  const stats = (await admin.command({ shardTargetingStats: 1 })) as unknown as TargetingStats;
  const ours = stats.commands.filter(({ namespace }) => namespace.startsWith(`${api.db.databaseName}.`));
  return {
    notOneShard: ours
      .filter(({ shards }) => shards !== 1)
      .map(({ command, namespace, shards }) => `${command} ${namespace.slice(api.db.databaseName.length + 1)} on ${shards} shards`),
    oneShard: ours.filter(({ shards }) => shards === 1).reduce((sum, { count }) => sum + count, 0),
    transactionShards: stats.transactions
      .filter(({ db }) => db === api.db.databaseName)
      .flatMap(({ shards, count }) => Array<number>(count).fill(shards)),
  };
}

async function succeeded<T extends { errors?: readonly unknown[] }>(answer: Promise<T>): Promise<T> {
  const result = await answer;
  if (result.errors) throw new Error(`the operation failed: ${JSON.stringify(result.errors)}`);
  return result;
}

/** Where in the book's layout the measured purchase lands: how many purchases the book had before it. */
const PURCHASE_POSITIONS: [string, number][] = [
  ["below the threshold", 0],
  ["crossing the threshold", settings.outlierThreshold],
  ["opening a later extra_sales page", settings.outlierThreshold + settings.extraSalesPageSize],
];

describe("on 4 shards, each command of these requests goes to one shard", () => {
  it.each(PURCHASE_POSITIONS)("a plain purchase %s", async (_, earlier) => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(earlier));
    const routing = await routingOf(() => recordPurchases(api, id, ["next"]));
    expect(routing.notOneShard).toEqual([]);
    expect(routing.oneShard).toBeGreaterThan(0);
  });

  it.each(PURCHASE_POSITIONS)("a keyed purchase %s, whose transaction touches one shard", async (_, earlier) => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(earlier));
    const routing = await routingOf(() =>
      succeeded(api.execute(KEYED_PURCHASE, { bookId: id, customerId: "next", purchaseId: `order-${id}` })),
    );
    expect(routing.notOneShard).toEqual([]);
    expect(routing.transactionShards).not.toEqual([]);
    expect(routing.transactionShards.every((shards) => shards === 1)).toBe(true);
  });

  it("book(id) with its buyers, and windows of them at every depth, into the extra_sales pages", async () => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(settings.outlierThreshold + 3 * settings.extraSalesPageSize));
    for (const after of [undefined, customerCursor(1), customerCursor(settings.outlierThreshold), customerCursor(7)]) {
      const routing = await routingOf(() => succeeded(api.execute(BOOK_WITH_BUYERS, { id, first: 2, after })));
      expect(routing.notOneShard).toEqual([]);
      expect(routing.oneShard).toBeGreaterThan(0);
    }
  });

  it("_entities for a book", async () => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(2));
    const routing = await routingOf(() => succeeded(api.execute(BOOK_ENTITY, { representations: [{ __typename: "Book", id }] })));
    expect(routing.notOneShard).toEqual([]);
    expect(routing.oneShard).toBe(1);
  });
});

it("a customer's purchase history reaches every shard, as docs/operations/sharding.md says of it", async () => {
  const id = await addBook(api);
  await recordPurchases(api, id, ["historian"]);
  const routing = await routingOf(() =>
    succeeded(
      api.execute(
        `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Customer { booksPurchased(first: 5) { edges { node { title } } } } } }`,
        {
          representations: [{ __typename: "Customer", id: "historian" }],
        },
      ),
    ),
  );
  expect(routing.notOneShard.length).toBeGreaterThan(0);
  expect(routing.notOneShard.every((entry) => entry.endsWith(`on ${SHARDS} shards`))).toBe(true);
});
