import { get } from "node:http";
import { gzipSync } from "node:zlib";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { answerOf, errorCodes, send, startTestHttpServer } from "../support/http";

// Issue 39: the API serves Apollo Server through its own small handler (src/graphql/transport/http-handler.ts) instead of
// @as-integrations/express5, and on Fastify instead of Express since; what a client sees of an answer stays what
// the integration on Express gave.

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
  await seedBook(database.db, "1", customers(2));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

const QUERY = `query Title($id: ID!) { book(id: $id) { title purchaseCount } }`;
const EXPECTED = { data: { book: { title: expect.any(String) as unknown, purchaseCount: 2 } } };

function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).on("error", reject);
  });
}

describe("the GraphQL handler", () => {
  it("answers a POST in one body whose Content-Length is its size in bytes, as JSON, with no ETag", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: QUERY, variables: { id: "1" } }),
    });
    const body = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    // Express' send hashed every answer for an ETag; a POST is never revalidated with one.
    expect(response.headers.get("etag")).toBeNull();
    expect(JSON.parse(body)).toEqual(EXPECTED);
  });

  it("reads a GET's operation and variables from the query string, and answers a matching If-None-Match with 304", async () => {
    const url = `${server.url}?query=${encodeURIComponent(QUERY)}&variables=${encodeURIComponent(JSON.stringify({ id: "1" }))}`;
    const first = await fetch(url, { headers: { "apollo-require-preflight": "true" } });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual(EXPECTED);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\//);
    // By node:http: fetch adds Cache-Control: no-cache to a conditional request, which no server answers 304.
    expect(await statusOf(url, { "apollo-require-preflight": "true", "if-none-match": etag! })).toBe(304);
  });

  it("answers with the status and headers Apollo Server chose: 405 and Allow for a mutation sent by GET", async () => {
    const mutation = `mutation { recordPurchase(input: { bookId: "1", customerId: "user99", purchaseId: "p-1" }) { replayed } }`;
    const response = await fetch(`${server.url}?query=${encodeURIComponent(mutation)}`, {
      headers: { "apollo-require-preflight": "true" },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe("the HTTP layer around it", () => {
  it("answers a CORS preflight from any origin with 204, the methods and the headers the page asked for", async () => {
    const response = await fetch(server.url, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,authorization",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")?.split(/,\s*/)).toEqual(expect.arrayContaining(["GET", "POST"]));
    expect(response.headers.get("access-control-allow-headers")).toBe("content-type,authorization");
  });

  it("lets any origin read an answer, a refusal before GraphQL included, and says it varies by Authorization", async () => {
    const answered = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://shop.example" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    const refused = await fetch(server.url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    for (const response of [answered, refused]) {
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("vary")?.toLowerCase()).toContain("authorization");
    }
    expect([answered.status, refused.status]).toEqual([200, 400]);
  });

  it("refuses a JSON POST without a body, and a body in an encoding it cannot decompress, with coded JSON errors", async () => {
    const empty = await send(server.url, "");
    const unknownEncoding = await send(server.url, "{}", {
      headers: { "content-type": "application/json", "content-encoding": "compress" },
    });
    expect([empty.status, errorCodes(empty)]).toEqual([400, ["BAD_REQUEST"]]);
    expect([unknownEncoding.status, errorCodes(unknownEncoding)]).toEqual([415, ["BAD_REQUEST"]]);
  });

  it("counts the body limit after decompression: 200 kB gzipped into a few hundred bytes is refused 413", async () => {
    const padded = JSON.stringify({ query: "{ __typename }", variables: { padding: " ".repeat(200 * 1024) } });
    const compressed = gzipSync(padded);
    expect(compressed.length).toBeLessThan(1024);
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: compressed,
    });
    expect([response.status, errorCodes(await answerOf(response))]).toEqual([413, ["PAYLOAD_TOO_LARGE"]]);
  });

  it("serves /graphql/ as /graphql", async () => {
    const answer = await send(`${server.url}/`, { query: "{ __typename }" });
    expect(answer.json).toEqual({ data: { __typename: "Query" } });
  });
});
