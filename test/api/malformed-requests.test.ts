import { createHash } from "node:crypto";
import { brotliCompressSync, gzipSync } from "node:zlib";
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
