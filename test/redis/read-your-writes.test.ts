import { startApiProcess, type ApiProcess } from "../support/api-process";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { getUrl, postOperation } from "../support/http";
import { bearer, tokenSpec, type TokenSpec } from "../support/tokens";

/**
 * Two API processes (`npm start`'s entry point) on one database and one Redis, with a long max age: after a purchase
 * through one answers, every read of the book through either shows it, whoever asks and however, although each
 * process had the answer from before the purchase cached. Runs only when TEST_REDIS_URL is set (jest.config.js).
 */
const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) throw new Error("TEST_REDIS_URL is unset: these tests need a Redis (see docs/testing.md)");

const shopper = tokenSpec("shopper", ["purchases:read", "catalog:write"]);
const BOOK = `query Book($id: ID!) { book(id: $id) { purchaseCount } }`;
const BUYERS = `query Buyers($id: ID!) { book(id: $id) { purchaseCount customersPurchased(last: 10) { edges { node { id: databaseId } } } } }`;
const HISTORY = `query History($id: ID!) { customer(id: $id) { booksPurchased(first: 10) { edges { node { id: databaseId } } } } }`;
const RECORD = `mutation Record($input: RecordPurchaseInput!) { recordPurchase(input: $input) { book { purchaseCount } } }`;

interface Read {
  name: string;
  query: string;
  variables: Record<string, unknown>;
  token?: TokenSpec;
  method: "GET" | "POST";
}

// Every way a storefront reads the book: its count anonymously, its buyers and the buyer's history by the shopper's token; by GET and by POST.
const READS: Read[] = (["GET", "POST"] as const).flatMap((method) => [
  { name: `anonymous ${method} of the book`, query: BOOK, variables: { id: "1" }, method },
  { name: `the shopper's ${method} of the book`, query: BOOK, variables: { id: "1" }, token: shopper, method },
  { name: `the shopper's ${method} of its buyers`, query: BUYERS, variables: { id: "1" }, token: shopper, method },
  { name: `the shopper's ${method} of their history`, query: HISTORY, variables: { id: "shopper-1" }, token: shopper, method },
]);

/** The answer's data (asserting it holds no error) and its Age header, which only an answer from the cache carries. */
async function read(api: ApiProcess, { query, variables, token, method }: Read): Promise<{ data: unknown; age: string | null }> {
  const authorization: Record<string, string> = token ? { authorization: bearer(token) } : {};
  const response =
    method === "GET"
      ? await fetch(getUrl(api.url, { query, variables }), { headers: authorization })
      : await fetch(api.url, {
          method: "POST",
          headers: { "content-type": "application/json", ...authorization },
          body: JSON.stringify({ query, variables }),
        });
  const json = (await response.json()) as { data?: unknown; errors?: unknown };
  expect(json.errors).toBeUndefined();
  return { data: json.data, age: response.headers.get("age") };
}

let database: TestDatabase;
let apis: ApiProcess[] = [];
beforeAll(async () => {
  database = await openTestDatabase();
  await seedBook(database.db, "1", customers(3));
  const env = {
    MONGODB_DB: database.db.databaseName,
    RESPONSE_CACHE_URL: redisUrl,
    // Far longer than the test: only an invalidation can make a cached answer show the purchase.
    CATALOG_MAX_AGE_SECONDS: "600",
    RESPONSE_CACHE_TIMEOUT_MS: "1000",
    API_TOKENS: JSON.stringify([shopper]),
  };
  apis = await Promise.all([startApiProcess("src/cli/start.ts", env), startApiProcess("src/cli/start.ts", env)]);
});
afterAll(async () => {
  await Promise.all(apis.map((api) => api.stop()));
  await database.close();
});

describe("a purchase through one of two API processes sharing a Redis response cache", () => {
  it.each([
    [0, 1],
    [1, 0],
  ])("shows at once through both, to the shopper and anonymously, by GET and POST (bought through process %i)", async (buyer) => {
    const customerId = `shopper-${buyer + 1}`;
    // Each read twice through each process: the second is answered from the cache (it carries an Age header).
    for (const api of apis) for (const request of READS) await read(api, request);
    const cachedBefore = await Promise.all(apis.flatMap((api) => READS.map((request) => read(api, request))));
    expect(cachedBefore.filter((answer) => answer.age === null)).toEqual([]);

    const recorded = await postOperation(apis[buyer]!.url, RECORD, { input: { bookId: "1", customerId } }, shopper);
    expect(recorded.json?.errors).toBeUndefined();
    const count = (recorded.json?.data as { recordPurchase: { book: { purchaseCount: number } } }).recordPurchase.book.purchaseCount;

    for (const api of apis) {
      for (const request of READS) {
        const data = JSON.stringify((await read(api, request)).data);
        if (request.query === HISTORY) expect({ [request.name]: data }).toEqual({ [request.name]: expect.stringContaining('"id":"1"') });
        else expect({ [request.name]: data }).toEqual({ [request.name]: expect.stringContaining(`"purchaseCount":${count}`) });
        if (request.query === BUYERS) expect(data).toContain(`"id":"${customerId}"`);
      }
    }
  });

  it("answers again from the cache, through both processes, once the purchase has been read", async () => {
    const request = READS[0]!;
    await read(apis[0]!, request);
    const repeated = await Promise.all(apis.map((api) => read(api, request)));
    expect(repeated.map((answer) => answer.age !== null)).toEqual([true, true]);
  });
});
