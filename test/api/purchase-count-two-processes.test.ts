import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createBook } from "../../src/sales/books";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { storedPurchases } from "../support/factories";
import { freePort, send } from "../support/http";

/**
 * Two API processes (`npm start`'s entry point) on one database, recording purchases of one outlier at
 * once: each answer's `purchaseCount` must count every purchase stored up to and including its own,
 * although the other process's increment of a purchase appended just before may still be on its way.
 */
const SETTINGS = { outlierThreshold: 5, extraSalesPageSize: 40 };
const PURCHASES = 400;
const CLIENTS = 20;
const RECORD = `mutation ($bookId: ID!, $customerId: ID!) {
  recordPurchase(input: { bookId: $bookId, customerId: $customerId }) { storedIn book { purchaseCount } }
}`;

interface ApiProcess {
  child: ChildProcess;
  url: string;
}

async function startApiProcess(database: TestDatabase): Promise<ApiProcess> {
  const port = await freePort();
  const { API_TOKENS: _open, ...inherited } = process.env;
  const child = spawn(join(__dirname, "..", "..", "node_modules", ".bin", "tsx"), [join(__dirname, "..", "..", "src", "cli", "start.ts")], {
    env: {
      ...inherited,
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      MONGODB_URI: process.env.TEST_MONGODB_URI!,
      MONGODB_DB: database.db.databaseName,
      PORT: String(port),
      HOST: "127.0.0.1",
      OUTLIER_THRESHOLD: String(SETTINGS.outlierThreshold),
      EXTRA_SALES_PAGE_SIZE: String(SETTINGS.extraSalesPageSize),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const origin = `http://127.0.0.1:${port}`;
  // A process on a busy machine takes seconds to start; it is ready once /readyz says so.
  for (;;) {
    const status = await fetch(`${origin}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { child, url: `${origin}/graphql` };
    if (child.exitCode !== null) throw new Error(`the API process exited with status ${child.exitCode} before it was ready`);
    await sleep(100);
  }
}

async function stopApiProcess({ child }: ApiProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

describe("two API processes recording purchases of one outlier at once", () => {
  let database: TestDatabase;
  let apis: ApiProcess[] = [];
  beforeAll(async () => {
    database = await openTestDatabase();
    apis = await Promise.all([startApiProcess(database), startApiProcess(database)]);
  });
  afterAll(async () => {
    await Promise.all(apis.map(stopApiProcess));
    await database.close();
  });

  it("answer each extra sale with a purchaseCount that counts every purchase stored up to it, its own included", async () => {
    await createBook(database.db, { id: "counted", title: "Counted", author: "A" }, SETTINGS);
    const counts = new Map<string, number>();
    let next = 0;
    const client = async (index: number) => {
      const api = apis[index % apis.length]!;
      for (let purchase = next++; purchase < PURCHASES; purchase = next++) {
        const customerId = `buyer-${purchase}`;
        const answer = await send(api.url, { query: RECORD, variables: { bookId: "counted", customerId } });
        const recorded = (answer.json?.data as { recordPurchase: { storedIn: string; book: { purchaseCount: number } } } | undefined)
          ?.recordPurchase;
        expect(answer.json?.errors).toBeUndefined();
        if (recorded?.storedIn === "EXTRA_SALES") counts.set(customerId, recorded.book.purchaseCount);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));

    const stored = await storedPurchases(database.db, "counted");
    expect(stored).toHaveLength(PURCHASES);
    const undercounted = stored
      .map((customerId, position) => ({ customerId, position, purchaseCount: counts.get(customerId) }))
      .filter(({ purchaseCount, position }) => purchaseCount !== undefined && purchaseCount < position + 1);
    expect(undercounted).toEqual([]);
    expect(counts.size).toBe(PURCHASES - SETTINGS.outlierThreshold);
  });
});
