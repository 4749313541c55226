import { createHash } from "node:crypto";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { MAX_JSON_DEPTH } from "../../src/graphql/limits/http";
import { serveOneBookLogged } from "../support/captured-log";
import { answerOf, errorCodes, send, type HttpAnswer } from "../support/http";

// Requests a client can get wrong, or an attacker can craft, sent over HTTP as they were found (issue 13):
// each is answered 400 with a coded JSON error and logged as the client's mistake, never at error level.

const served = serveOneBookLogged();
beforeEach(() => served.log.clear());

const QUERY = "{ books { totalCount } }";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function expectClientMistake(answer: HttpAnswer, code: string): void {
  expect({ status: answer.status, codes: errorCodes(answer) }).toEqual({ status: 400, codes: [code] });
  expect(answer.contentType).toMatch(/json/);
  expect(JSON.stringify(answer.json)).not.toMatch(/stacktrace|\bat .*\.(ts|js):\d+/);
  expect(served.log.errors()).toEqual([]);
}

describe("an operation that cannot be picked from the document", () => {
  it("named by an operationName the document does not hold is refused with OPERATION_RESOLUTION_FAILURE", async () => {
    expectClientMistake(
      await send(served.server.url, { query: "query Shelf { books { totalCount } }", operationName: "Other" }),
      "OPERATION_RESOLUTION_FAILURE",
    );
  });

  it("among two operations without an operationName is refused with OPERATION_RESOLUTION_FAILURE", async () => {
    expectClientMistake(
      await send(served.server.url, { query: "query A { books { totalCount } } query B { salesStats { books } }" }),
      "OPERATION_RESOLUTION_FAILURE",
    );
  });

  it("leaves the server answering the next request", async () => {
    await send(served.server.url, { query: "query A { books { totalCount } } query B { books { totalCount } }" });
    expect((await send(served.server.url, { query: QUERY })).json).toEqual({ data: { books: { totalCount: 1 } } });
  });
});

describe("an automatic persisted query", () => {
  it("of an unsupported version is refused with PERSISTED_QUERY_NOT_SUPPORTED", async () => {
    const answer = await send(served.server.url, {
      query: QUERY,
      extensions: { persistedQuery: { version: 2, sha256Hash: sha256(QUERY) } },
    });
    expectClientMistake(answer, "PERSISTED_QUERY_NOT_SUPPORTED");
  });

  it("whose hash does not match its query is refused with PERSISTED_QUERY_HASH_MISMATCH", async () => {
    const answer = await send(served.server.url, {
      query: QUERY,
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256("{ salesStats { books } }") } },
    });
    expectClientMistake(answer, "PERSISTED_QUERY_HASH_MISMATCH");
  });

  it("with a matching hash is answered, and afterwards by its hash alone", async () => {
    const persistedQuery = { version: 1, sha256Hash: sha256(QUERY) };
    expect((await send(served.server.url, { query: QUERY, extensions: { persistedQuery } })).json).toEqual({
      data: { books: { totalCount: 1 } },
    });
    expect((await send(served.server.url, { extensions: { persistedQuery } })).json).toEqual({ data: { books: { totalCount: 1 } } });
  });
});

describe("a compressed body", () => {
  const body = JSON.stringify({ query: QUERY });

  it.each([
    ["gzip", gzipSync(body).subarray(0, 20)],
    ["br", brotliCompressSync(body).subarray(0, 5)],
    ["gzip", Buffer.from("not gzip at all")],
    ["deflate", Buffer.from("not deflate either")],
  ])("that is not valid %s is refused with BAD_REQUEST", async (encoding, bytes) => {
    const answer = await sendBytes(bytes, encoding);
    expectClientMistake(answer, "BAD_REQUEST");
  });

  it.each([
    ["gzip", gzipSync(body)],
    ["br", brotliCompressSync(body)],
  ])("in valid %s is answered", async (encoding, bytes) => {
    expect((await sendBytes(bytes, encoding)).json).toEqual({ data: { books: { totalCount: 1 } } });
  });
});

async function sendBytes(bytes: Buffer, encoding: string): Promise<HttpAnswer> {
  const response = await fetch(served.server.url, {
    method: "POST",
    headers: { "content-type": "application/json", "content-encoding": encoding },
    body: bytes,
  });
  return answerOf(response);
}

describe("a variable nested deeper than anything walks safely (issue 35)", () => {
  /** `{"id": [[…"x"…]]}` nested `depth` times, as text: 12 KB at 6,000 levels, past the stack of whatever walks it recursively. */
  const nestedVariables = (depth: number) => `{"id":${"[".repeat(depth)}"x"${"]".repeat(depth)}}`;
  const declared = "query ($id: ID!) { book(id: $id) { title } }";
  const undeclared = "{ books(first: 1) { totalCount } }";
  const post = (query: string, depth: number) =>
    send(served.server.url, `{"query":${JSON.stringify(query)},"variables":${nestedVariables(depth)}}`);
  // The brackets as they are, not percent-encoded: 6,000 levels then fit in Node's 16 KB of headers.
  const get = (query: string, depth: number) =>
    send(`${served.server.url}?query=${encodeURIComponent(query)}&variables=${nestedVariables(depth)}`, undefined, { method: "GET" });

  it.each([
    ["POST", "declared", post, declared],
    ["POST", "undeclared", post, undeclared],
    ["GET", "declared", get, declared],
    ["GET", "undeclared", get, undeclared],
  ])("sent by %s, %s, 6,000 levels deep, is refused 400 BAD_USER_INPUT", async (_method, _kind, sent, query) => {
    expectClientMistake(await sent(query, 6_000), "BAD_USER_INPUT");
    expect(served.log.errors()).toEqual([]);
  });

  // The variables object itself is the first of the MAX_JSON_DEPTH levels.
  it.each([
    ["POST", post],
    ["GET", get],
  ])(
    `sent by %s, ${MAX_JSON_DEPTH} levels deep, is still GraphQL's to judge (an ID cannot be a list); one level more is refused`,
    async (_method, sent) => {
      const answer = await sent(declared, MAX_JSON_DEPTH - 1);
      expect(errorCodes(answer)).toEqual(["BAD_USER_INPUT"]);
      expect(answer.json?.errors?.[0]?.message).toMatch(/ID cannot represent/);
      const deeper = await sent(declared, MAX_JSON_DEPTH);
      expect(deeper.json?.errors?.[0]?.message).toMatch(/at most 32 levels/);
    },
  );
});
