import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { statusOf, type ErrorCode } from "../../error-codes";

/**
 * Answers in the shape of a GraphQL error response, so that clients read every refusal the same way: a refusal
 * before the request reaches GraphQL, or after it has run out of time.
 */
function refuse(response: Response, code: ErrorCode, message: string, status = statusOf(code)): void {
  response.status(status).json({ errors: [{ message, extensions: { code } }] });
}

interface BodyParserError {
  status: number;
  /** body-parser's own refusals say what went wrong here; an error of the decompressing stream (zlib) has none. */
  type?: string;
  expose: boolean;
  message: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === "object" && error !== null && "status" in error && "expose" in error;
}

/**
 * Turns `express.json`'s refusals (a body over its limit, unparsable JSON, an unknown charset, a
 * gzip, deflate or brotli body that does not decompress) into coded JSON errors instead of Express's
 * HTML pages. Its messages are marked safe to show (`expose`).
 */
export function requestBodyErrors(limit: string): ErrorRequestHandler {
  return (error: unknown, request, response, next) => {
    if (!isBodyParserError(error) || !error.expose) return next(error);
    if (error.type === "entity.too.large") {
      return refuse(response, "PAYLOAD_TOO_LARGE", `The request body is larger than the limit of ${limit}.`);
    }
    if (error.type === undefined) {
      const encoding = request.headers["content-encoding"] ?? "";
      return refuse(response, "BAD_REQUEST", `The request body is not valid ${encoding} (${error.message}).`, error.status);
    }
    refuse(response, "BAD_REQUEST", error.message, error.status);
  };
}

/**
 * Refuses a POST whose body is not JSON: a cross-site page can send `text/plain` or form bodies
 * without a CORS preflight, JSON only after one. Apollo's own CSRF check is off because it also
 * refuses plain GETs, which run only queries (SECURITY.md, "CSRF").
 */
export const refuseNonJsonPosts: RequestHandler = (request, response, next) => {
  if (request.method !== "POST" || request.is("application/json")) return next();
  refuse(response, "BAD_REQUEST", "A POST must carry its operation as JSON, with content-type: application/json.");
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
export function refuseDeepJson(maxDepth: number): RequestHandler {
  return (request, response, next) => {
    // Express parses the query string when `query` is first read: only a GET's is wanted.
    const query = request.method === "GET" ? (request.query as Record<string, unknown>) : undefined;
    const sent = query ? [jsonParameter(query.variables), jsonParameter(query.extensions)] : [request.body];
    // A POST's body is the variables' and extensions' parent: one level more.
    const limit = request.method === "GET" ? maxDepth : maxDepth + 1;
    if (!sent.some((value) => nestsDeeperThan(value, limit))) return next();
    refuse(response, "BAD_USER_INPUT", tooDeepJson(maxDepth));
  };
}

/**
 * Answers 503 REQUEST_TIMEOUT when a request is still running after `timeoutMs`. The work already
 * started is not interrupted (GraphQL execution cannot be), but its database operations are bounded
 * by the driver timeouts (`driverTimeouts`), and its late answer is dropped by `dropLateAnswers`.
 */
export function requestTimeLimit(timeoutMs: number): RequestHandler {
  return (_request, response, next) => {
    const timer = setTimeout(() => {
      if (response.headersSent) return;
      response.locals.timedOut = true;
      refuse(response, "REQUEST_TIMEOUT", `The request took longer than the limit of ${timeoutMs} ms; try again, or ask for less.`);
    }, timeoutMs);
    response.on("close", () => clearTimeout(timer));
    next();
  };
}

/** After a time-limit answer has gone out, the request's own answer fails to write; that is expected, not an error. */
export const dropLateAnswers: ErrorRequestHandler = (error: unknown, _request, response, next) => {
  if (response.locals.timedOut === true) return;
  next(error);
};
