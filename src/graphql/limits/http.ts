import type { FastifyError, FastifyReply, FastifyRequest, onRequestHookHandler, preValidationHookHandler } from "fastify";
import type { Logger } from "pino";
import { statusOf, type ErrorCode } from "../../error-codes";

/**
 * Answers in the shape of a GraphQL error response, so that clients read every refusal the same way: a refusal
 * before the request reaches GraphQL, or after it has run out of time.
 */
function refuse(reply: FastifyReply, code: ErrorCode, message: string, status = statusOf(code)): FastifyReply {
  return reply.code(status).send({ errors: [{ message, extensions: { code } }] });
}

/**
 * Fastify's and its plugins' refusals of a request (a body over its limit, unparsable JSON, an empty JSON body,
 * a gzip, deflate or brotli body that does not decompress, an unknown content encoding) as coded JSON errors,
 * each with the status Fastify chose; anything else is the server's own failure: logged, and answered 500
 * without its message, which may say more about the server than a caller should know.
 */
export function requestErrors(limit: string, logger: Logger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const status = error.statusCode ?? 500;
    if (status === 413) {
      discardBody(request, reply);
      return refuse(reply, "PAYLOAD_TOO_LARGE", `The request body is larger than the limit of ${limit}.`);
    }
    if (status >= 400 && status < 500) return refuse(reply, "BAD_REQUEST", error.message, status);
    logger.error({ err: error }, "HTTP request failed");
    return refuse(reply, "INTERNAL_SERVER_ERROR", "The server failed to answer this request.");
  };
}

/**
 * The most bytes of a body over the limit that are read and thrown away so that its sender, still sending, reads the 413:
 * Fastify answers it with `connection: close` before reading the body, and Node's fetch of a 5 MB body then failed
 * with EPIPE instead of reading the answer (issue 51). Past this, the connection is closed all the same: a client
 * that sends gigabytes is not read for ever.
 */
export const DISCARDED_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Keeps the connection of a body over the limit open while the rest of the body arrives, read and thrown away (never
 * held), up to DISCARDED_BODY_BYTES; the answer is written meanwhile, and the connection serves the next request.
 */
function discardBody(request: FastifyRequest, reply: FastifyReply): void {
  const body = request.raw;
  if (body.readableEnded || body.destroyed) return;
  reply.removeHeader("connection");
  let discarded = 0;
  body.on("data", (bytes: Buffer) => {
    discarded += bytes.length;
    if (discarded > DISCARDED_BODY_BYTES) body.socket.destroy();
  });
  body.resume();
}

/** What `@fastify/compress` answers a body its content encoding does not decompress with (`onInvalidRequestPayload`). */
export function undecompressable(encoding: string, _request: unknown, error: Error): Error {
  return Object.assign(new Error(`The request body is not valid ${encoding} (${error.message}).`), { statusCode: 400 });
}

/** The media type of a Content-Type header, without its parameters (`charset`), in lower case. */
function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(";", 1)[0]?.trim().toLowerCase();
}

/**
 * Refuses a POST whose body is not JSON: a cross-site page can send `text/plain` or form bodies
 * without a CORS preflight, JSON only after one. Apollo's own CSRF check is off because it also
 * refuses plain GETs, which run only queries (SECURITY.md, "CSRF"). Runs before the body is read.
 */
export const refuseNonJsonPosts: onRequestHookHandler = (request, reply, done) => {
  if (request.method !== "POST" || mediaTypeOf(request.headers["content-type"]) === "application/json") return done();
  refuse(reply, "BAD_REQUEST", "A POST must carry its operation as JSON, with content-type: application/json.");
};

/** Levels of arrays and objects a request's JSON may nest: an input of this schema needs a handful. */
export const MAX_JSON_DEPTH = 32;

/** What a request whose variables or extensions nest deeper than `maxDepth` is told, over HTTP and WebSocket alike. */
export function tooDeepJson(maxDepth: number): string {
  return `Variables and extensions may nest arrays and objects at most ${maxDepth} levels deep.`;
}

/** True when `value` nests arrays and objects more than `limit` deep; walked with a stack of its own, never recursively. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** A GET's JSON parameter parsed, or undefined when it is absent or not JSON (Apollo refuses the latter itself). */
function jsonParameter(value: unknown): unknown {
  if (typeof value !== "string") return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * Refuses 400 BAD_USER_INPUT a request whose variables or extensions nest deeper than `maxDepth`, before
 * anything walks them: `JSON.parse` does not recurse, but `JSON.stringify`, GraphQL's input coercion and
 * Apollo do, and 6,000 levels (12 KB) ran them out of stack: a 500 logged at error level.
 */
export function refuseDeepJson(maxDepth: number): preValidationHookHandler {
  return (request, reply, done) => {
    const query = request.method === "GET" ? (request.query as Record<string, unknown>) : undefined;
    const sent = query ? [jsonParameter(query.variables), jsonParameter(query.extensions)] : [request.body];
    // A POST's body is the variables' and extensions' parent: one level more.
    const limit = request.method === "GET" ? maxDepth : maxDepth + 1;
    if (!sent.some((value) => nestsDeeperThan(value, limit))) return done();
    refuse(reply, "BAD_USER_INPUT", tooDeepJson(maxDepth));
  };
}

/**
 * Answers 503 REQUEST_TIMEOUT when a request is still running after `timeoutMs`. The work already
 * started is not interrupted (GraphQL execution cannot be), but its database operations are bounded
 * by the driver timeouts (`driverTimeouts`), and its late answer is dropped: the GraphQL handler
 * sends nothing on a reply already sent (`graphqlHandler`).
 */
export function requestTimeLimit(timeoutMs: number): onRequestHookHandler {
  return (_request, reply, done) => {
    const timer = setTimeout(() => {
      if (reply.sent) return;
      refuse(reply, "REQUEST_TIMEOUT", `The request took longer than the limit of ${timeoutMs} ms; try again, or ask for less.`);
    }, timeoutMs);
    reply.raw.on("close", () => clearTimeout(timer));
    done();
  };
}
