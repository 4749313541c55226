import fastify from "fastify";
import { requestErrors } from "../../src/graphql/limits/http";
import { captureLog } from "../support/captured-log";

// Issue 39: on Fastify, what fails while a request is handled reaches one error handler (`requestErrors`),
// which answers every failure as a coded JSON error: the client's mistakes with their status, the server's own
// with 500 INTERNAL_SERVER_ERROR, its message kept from the caller and logged.

const log = captureLog();

/** A Fastify app whose one route fails with `error`, answered by `requestErrors`. */
async function answerTo(error: Error) {
  const app = fastify();
  app.setErrorHandler(requestErrors("100kb", log.logger));
  app.get("/", async () => {
    throw error;
  });
  // Over a socket: Fastify's `inject` loads an ES module jest's CommonJS runtime cannot.
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  try {
    const response = await fetch(url);
    return { status: response.status, body: (await response.json()) as { errors: { message: string; extensions: { code: string } }[] } };
  } finally {
    await app.close();
  }
}

const failure = (message: string, statusCode?: number) => Object.assign(new Error(message), statusCode ? { statusCode } : {});

beforeEach(() => log.clear());

describe("the HTTP layer's error handler", () => {
  it("answers a body over the limit 413 PAYLOAD_TOO_LARGE, naming the limit", async () => {
    const { status, body } = await answerTo(failure("Request body is too large", 413));
    expect([status, body.errors.map((error) => [error.extensions.code, error.message])]).toEqual([
      413,
      [["PAYLOAD_TOO_LARGE", "The request body is larger than the limit of 100kb."]],
    ]);
  });

  it("answers the client's other mistakes BAD_REQUEST with their own status and message, and logs nothing at error level", async () => {
    const unparsable = await answerTo(failure("Unexpected end of JSON input", 400));
    const encoding = await answerTo(failure("Unsupported Content-Encoding: compress", 415));
    expect([unparsable.status, unparsable.body.errors[0]?.extensions.code, unparsable.body.errors[0]?.message]).toEqual([
      400,
      "BAD_REQUEST",
      "Unexpected end of JSON input",
    ]);
    expect([encoding.status, encoding.body.errors[0]?.extensions.code]).toEqual([415, "BAD_REQUEST"]);
    expect(log.errors()).toEqual([]);
  });

  it("answers the server's own failure 500 INTERNAL_SERVER_ERROR without its message, which it logs", async () => {
    const { status, body } = await answerTo(failure("connection string mongodb://secret@db"));
    expect([status, body.errors[0]?.extensions.code]).toEqual([500, "INTERNAL_SERVER_ERROR"]);
    expect(JSON.stringify(body)).not.toContain("secret");
    expect(log.errors()).toHaveLength(1);
  });
});
