import { startOfflineServer } from "@bookstore/offline-mongo";
import type { MongoClient } from "mongodb";
import type { OutlierSettings } from "../../src/config";
import { connectToDatabase } from "../../src/db/connection";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import { SHARD_KEYS } from "../../src/sales/shard-keys";
import { graphql, post, withServer } from "../kit/http";

/** The simulated shards: the 4. */
export const SHARDS = 4;

/** How one request was routed on the simulated shards. */
export interface ShardTargetingRow {
  request: string;
  /** Whether docs/operations/sharding.md promises it reaches one shard (else it names it scatter-gather). */
  oneShardPath: boolean;
  commands: number;
  /** Commands that reached more than one shard. */
  multiShardCommands: number;
  transactions: number;
  multiShardTransactions: number;
}

export interface ShardTargetingResults {
  shards: number;
  rows: ShardTargetingRow[];
}

interface Stats {
  commands: { namespace: string; shards: number; count: number }[];
  transactions: { db: string; shards: number; count: number }[];
}

/** Small outlier settings, so that a handful of purchases crosses the threshold and opens pages. */
const SETTINGS: OutlierSettings = { outlierThreshold: 3, extraSalesPageSize: 2 };
const DATABASE = "bench_shards";

const ADD_BOOK = 'mutation ($title: String!) { addBook(input: { title: $title, author: "Bench" }) { id: databaseId } }';
const PURCHASE =
  "mutation ($b: ID!, $c: ID!, $p: ID) { recordPurchase(input: { bookId: $b, customerId: $c, purchaseId: $p }) { storedIn } }";
const BOOK =
  "query ($id: ID!, $after: String) { book(id: $id) { title customersPurchased(first: 2, after: $after) { edges { node { id: databaseId } } } } }";
const ENTITY = "query ($r: [_Any!]!) { _entities(representations: $r) { ... on Book { title purchaseCount } } }";
const HISTORY =
  "query ($r: [_Any!]!) { _entities(representations: $r) { ... on Customer { booksPurchased(first: 5) { edges { node { title } } } } } }";
const BROWSE = "query { books(first: 10) { totalCount edges { node { title } } } }";
const BESTSELLERS = "query { salesStats(top: 5) { books largestBooks { title } } }";

/**
 * The targets, counted: each request of a purchase (plain and keyed, below and past the threshold), of
 * `book(id)`, of a buyers window at any depth and of `_entities` for a book, and the scatter-gather reads the
 * document names, on the stand-in routing as a mongos over 4 shards (a replica set, so keyed purchases are
 * transactions), with the product's shard keys. Counts, not times: they do not depend on the machine.
 */
export async function benchmarkShardTargeting(): Promise<ShardTargetingResults> {
  const server = await startOfflineServer({ replicaSet: "rs0", shards: SHARDS, shardKeys: { ...SHARD_KEYS } });
  try {
    const connection = await connectToDatabase(server.uri, DATABASE, {}, { ensureIndexes: ensureSalesIndexes });
    try {
      const rows = await withServer(connection.db, SETTINGS, true, (url) => measureRequests(url, connection.client));
      return { shards: SHARDS, rows };
    } finally {
      await connection.db.dropDatabase();
      await connection.close();
    }
  } finally {
    await server.stop();
  }
}

async function measureRequests(url: string, client: MongoClient): Promise<ShardTargetingRow[]> {
  const send = async (query: string, variables: Record<string, unknown> = {}) => {
    const answer = (await post(url, graphql(query, variables))) as { data?: Record<string, unknown>; errors?: unknown };
    if (answer.errors) throw new Error(`the shard-targeting bench's request failed: ${JSON.stringify(answer.errors)}`);
    return answer.data ?? {};
  };
  let books = 0;
  const bookWith = async (purchases: number): Promise<string> => {
    const added = (await send(ADD_BOOK, { title: `Sharded ${++books}` })) as { addBook: { id: string } };
    for (let customer = 0; customer < purchases; customer++) await send(PURCHASE, { b: added.addBook.id, c: `early${customer}` });
    return added.addBook.id;
  };
  const measure = async (request: string, oneShardPath: boolean, run: () => Promise<unknown>): Promise<ShardTargetingRow> => {
    const admin = client.db("admin");
    await admin.command({ shardTargetingStats: 1, reset: true });
    await run();
    return routingRow(request, oneShardPath, (await admin.command({ shardTargetingStats: 1 })) as unknown as Stats);
  };

  const rows: ShardTargetingRow[] = [];
  const positions = [
    ["below the threshold", 0],
    ["crossing the threshold", SETTINGS.outlierThreshold],
    ["opening a later extra_sales page", SETTINGS.outlierThreshold + SETTINGS.extraSalesPageSize],
  ] as const;
  for (const [where, earlier] of positions) {
    const plain = await bookWith(earlier);
    rows.push(await measure(`plain purchase, ${where}`, true, () => send(PURCHASE, { b: plain, c: "next" })));
    const keyed = await bookWith(earlier);
    rows.push(await measure(`keyed purchase, ${where}`, true, () => send(PURCHASE, { b: keyed, c: "next", p: `order-${keyed}` })));
  }
  const deep = await bookWith(SETTINGS.outlierThreshold + 3 * SETTINGS.extraSalesPageSize);
  rows.push(await measure("book(id) with its first buyers", true, () => send(BOOK, { id: deep })));
  rows.push(await measure("a buyers window 7 deep (extra_sales)", true, () => send(BOOK, { id: deep, after: customerCursor(7) })));
  rows.push(await measure("_entities for a book", true, () => send(ENTITY, { r: [{ __typename: "Book", id: deep }] })));
  rows.push(await measure("a customer's purchase history", false, () => send(HISTORY, { r: [{ __typename: "Customer", id: "early0" }] })));
  rows.push(await measure("catalog browse, books(first: 10)", false, () => send(BROWSE)));
  rows.push(await measure("bestsellers (salesStats)", false, () => send(BESTSELLERS)));
  return rows;
}

function routingRow(request: string, oneShardPath: boolean, stats: Stats): ShardTargetingRow {
  const ours = stats.commands.filter(({ namespace }) => namespace.startsWith(`${DATABASE}.`));
  const transactions = stats.transactions.filter(({ db }) => db === DATABASE);
  const total = <Entry extends { count: number }>(entries: Entry[]) => entries.reduce((sum, { count }) => sum + count, 0);
  return {
    request,
    oneShardPath,
    commands: total(ours),
    multiShardCommands: total(ours.filter(({ shards }) => shards > 1)),
    transactions: total(transactions),
    multiShardTransactions: total(transactions.filter(({ shards }) => shards > 1)),
  };
}
