import type { Document } from "mongodb";
import { setTimeout as sleep } from "node:timers/promises";
import { graphql } from "../__generated__";
import type { FaultedPurchaseMutation } from "../__generated__/graphql";
import { openTestApi, type ExecutionResult, type TestApi } from "../support/api";
import { addBook, customers, invariantViolations, storedBook, storedPurchases } from "../support/factories";
import { errorCodes, postOperation, startTestHttpServer } from "../support/http";

/**
 * The faults MongoDB's drivers are tested against, injected with mongod's failCommand fail point into the
 * replica set beside the run's database (TEST_REPLICA_SET_URI: the stand-in started with test commands enabled,
 * or a mongod started with --setParameter enableTestCommands=1), under purchases through the API. Every case:
 * each acknowledged purchase is stored exactly once, the book keeps the pattern's invariants, and the client's
 * answer is what docs/design/purchases.md and docs/operations/outages.md promise. Fail points are the server's, not the connection's: these tests assume
 * jest runs one test file at a time against the replica set (its default on this 2-core machine), and scope
 * each fail point to this file's collections where the command has one.
 */
const settings = { outlierThreshold: 3, extraSalesPageSize: 4 };

const RECORD_PURCHASE = graphql(`
  mutation FaultedPurchase($bookId: ID!, $customerId: ID!, $purchaseId: ID) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId, purchaseId: $purchaseId }) {
      storedIn
      replayed
    }
  }
`);

describe.each([
  { batching: "on", purchaseBatching: true },
  { batching: "off", purchaseBatching: false },
])("on a replica set with purchase batching $batching", ({ purchaseBatching }) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestApi({ settings, batching: { purchaseBatching, purchaseBatchMax: 100 }, replicaSet: true });
  });
  afterAll(() => api.close());
  afterEach(() => failCommand("off"));

  function failCommand(mode: Document | string, data: Document = {}): Promise<Document> {
    return api.client.db("admin").command({ configureFailPoint: "failCommand", mode, data });
  }

  /** Runs `purchase` under a fail point that fires once, and says how often it fired (1: the fault was injected). */
  async function underFault<T>(data: Document, purchase: () => Promise<T>): Promise<{ answer: T; fired: number }> {
    const { count: before } = await failCommand({ times: 1 }, data);
    const answer = await purchase();
    const { count: after } = await failCommand("off");
    return { answer, fired: after - before };
  }

  const namespace = (collection: string) => `${api.db.databaseName}.${collection}`;

  const buy = (bookId: string, customerId: string, purchaseId?: string) => purchase(api, bookId, customerId, purchaseId);
  const expectStoredOnce = (bookId: string, expected: readonly string[]) => expectStoredOnceIn(api, bookId, expected);

  /** A book past its threshold with an open page that has room: the next purchase appends to it. */
  async function outlierWithRoom(): Promise<string> {
    const bookId = await addBook(api);
    for (const customerId of customers(4, 0, "seed")) expect((await buy(bookId, customerId)).errors).toBeUndefined();
    return bookId;
  }

  it("a WriteConflict on a keyed purchase's append is retried in a new transaction: stored once, answered as stored", async () => {
    const bookId = await outlierWithRoom();
    const fault = { failCommands: ["update"], namespace: namespace("extra_sales"), errorCode: 112 };
    const { answer, fired } = await underFault(fault, () => buy(bookId, "alice", "line-1"));
    expect(fired).toBe(1);
    expect(answer.data?.recordPurchase).toEqual({ storedIn: "EXTRA_SALES", replayed: false });
    await expectStoredOnce(bookId, [...customers(4, 0, "seed"), "alice"]);
  });

  it("a connection closed on commitTransaction makes the driver retry the commit: stored once, answered as stored", async () => {
    const bookId = await outlierWithRoom();
    const fault = { failCommands: ["commitTransaction"], closeConnection: true };
    const { answer, fired } = await underFault(fault, () => buy(bookId, "alice", "line-1"));
    expect(fired).toBe(1);
    expect(answer.data?.recordPurchase).toEqual({ storedIn: "EXTRA_SALES", replayed: false });
    await expectStoredOnce(bookId, [...customers(4, 0, "seed"), "alice"]);
  });

  it("a write concern error on commitTransaction makes the driver retry the commit: stored once, answered as stored", async () => {
    const bookId = await addBook(api);
    const writeConcernError = {
      code: 64,
      codeName: "WriteConcernFailed",
      errmsg: "waiting for replication timed out",
      errInfo: { wtimeout: true },
    };
    const { answer, fired } = await underFault({ failCommands: ["commitTransaction"], writeConcernError }, () =>
      buy(bookId, "alice", "line-1"),
    );
    expect(fired).toBe(1);
    expect(answer.data?.recordPurchase).toEqual({ storedIn: "EMBEDDED", replayed: false });
    await expectStoredOnce(bookId, ["alice"]);
  });

  it("a connection blocked past the request limit is answered REQUEST_TIMEOUT, and the retry with its purchaseId stores it once", async () => {
    const bookId = await addBook(api);
    const server = await startTestHttpServer(api.db, {
      settings,
      requestTimeoutMs: 300,
      purchaseBatching: { purchaseBatching, purchaseBatchMax: 100 },
    });
    const input = { bookId, customerId: "alice", purchaseId: "line-1" };
    const mutation = `mutation ($input: RecordPurchaseInput!) { recordPurchase(input: $input) { storedIn } }`;
    try {
      const fault = { failCommands: ["insert"], namespace: namespace("purchase_requests"), blockConnection: true, blockTimeMS: 1_500 };
      const { answer, fired } = await underFault(fault, () => postOperation(server.url, mutation, { input }));
      expect(fired).toBe(1);
      expect(errorCodes(answer)).toEqual(["REQUEST_TIMEOUT"]);
      // Past the block: whatever the cut-off request still wrote has landed by now.
      await sleep(2_000);
      const retried = await postOperation(server.url, mutation, { input });
      expect(retried.json?.data).toEqual({ recordPurchase: { storedIn: "EMBEDDED" } });
      await expectStoredOnce(bookId, ["alice"]);
    } finally {
      await server.stop();
    }
  });

  it("a connection closed right after a plain purchase's append is retried once by the driver: counted once, answered as stored", async () => {
    const bookId = await outlierWithRoom();
    // The book is a known outlier now: the purchase appends, then counts on the book, where the connection is cut.
    const fault = { failCommands: ["findAndModify"], namespace: namespace("sales"), closeConnection: true };
    const { answer, fired } = await underFault(fault, () => buy(bookId, "alice"));
    expect(fired).toBe(1);
    expect(answer.data?.recordPurchase).toEqual({ storedIn: "EXTRA_SALES", replayed: false });
    await expectStoredOnce(bookId, [...customers(4, 0, "seed"), "alice"]);
  });

  it("a connection closed on a plain embedded purchase's write is retried once by the driver: stored once, answered as stored", async () => {
    const bookId = await addBook(api);
    const fault = { failCommands: ["findAndModify"], namespace: namespace("sales"), closeConnection: true };
    const { answer, fired } = await underFault(fault, () => buy(bookId, "alice"));
    expect(fired).toBe(1);
    expect(answer.data?.recordPurchase).toEqual({ storedIn: "EMBEDDED", replayed: false });
    await expectStoredOnce(bookId, ["alice"]);
  });

  it("plain purchases racing keyed ones on one book lose nothing: each acknowledged purchase is stored once", () =>
    racePlainAgainstKeyed(api));
});

describe.each([
  { batching: "on", purchaseBatching: true },
  { batching: "off", purchaseBatching: false },
])("on the run's database with purchase batching $batching", ({ purchaseBatching }) => {
  let api: TestApi;
  beforeAll(async () => void (api = await openTestApi({ settings, batching: { purchaseBatching, purchaseBatchMax: 100 } })));
  afterAll(() => api.close());

  it("plain purchases racing keyed ones on one book lose nothing: each acknowledged purchase is stored once", () =>
    racePlainAgainstKeyed(api));
});

function purchase(
  api: TestApi,
  bookId: string,
  customerId: string,
  purchaseId?: string,
): Promise<ExecutionResult<FaultedPurchaseMutation>> {
  return api.execute(RECORD_PURCHASE, { bookId, customerId, purchaseId });
}

/** Each purchase stored once, the count equal to what is stored, every invariant holding. */
async function expectStoredOnceIn(api: TestApi, bookId: string, expected: readonly string[]): Promise<void> {
  expect((await storedPurchases(api.db, bookId)).sort()).toEqual([...expected].sort());
  expect((await storedBook(api.db, bookId)).book?.purchase_count).toBe(expected.length);
  expect(await invariantViolations(api.db, bookId, settings)).toEqual([]);
}

/**
 * 30 purchases without a purchaseId (plain writes) and 30 with one (transactions on a replica set) of one book,
 * all at once, across its threshold and several pages: every one acknowledged and stored once.
 */
async function racePlainAgainstKeyed(api: TestApi): Promise<void> {
  const bookId = await addBook(api);
  const plain = customers(30, 0, "plain");
  const keyed = customers(30, 0, "keyed");
  // A keyed purchase answered DATABASE_UNAVAILABLE (its transaction gave up on conflicts) is retried with its key, as a client would.
  const buyKeyed = async (customerId: string): Promise<ExecutionResult<FaultedPurchaseMutation>> => {
    for (;;) {
      const answer = await purchase(api, bookId, customerId, `line-${customerId}`);
      if (!answer.errors?.every((error) => error.extensions?.["code"] === "DATABASE_UNAVAILABLE")) return answer;
    }
  };
  const answers = await Promise.all([...plain.map((customerId) => purchase(api, bookId, customerId)), ...keyed.map(buyKeyed)]);
  expect(answers.flatMap((answer) => answer.errors ?? [])).toEqual([]);
  await expectStoredOnceIn(api, bookId, [...plain, ...keyed]);
}
