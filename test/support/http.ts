import { once } from "node:events";
import net, { type AddressInfo } from "node:net";
import type { GraphQLFormattedError } from "graphql";
import type { Db } from "mongodb";
import pino from "pino";
import { startHttpServer, type RunningServer, type ServerOptions } from "../../src/graphql/transport/server";
import { TEST_SETTINGS } from "./api";
import { track } from "./in-flight";
import { bearer, type TokenSpec } from "./tokens";

export interface HttpAnswer {
  status: number;
  contentType: string;
  /** The `Cache-Control` header, or null when there is none. */
  cacheControl: string | null;
  /** The body parsed as JSON, or undefined when it is not JSON (an HTML error page, say). */
  json?: { data?: unknown; errors?: GraphQLFormattedError[] };
}

/** Sends `body` as it is (a string) or as JSON, with the headers given; by default as a JSON POST. */
export function send(url: string, body?: unknown, init: { method?: string; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
  return track(
    (async () => {
      const response = await fetch(url, {
        method: init.method ?? "POST",
        headers: init.headers ?? { "content-type": "application/json" },
        body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
      });
      return answerOf(response);
    })(),
  );
}

/** What a test reads of a response: status, content type, caching header and JSON body. */
export async function answerOf(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  const json = contentType.includes("json") ? JSON.parse(text) : undefined;
  return { status: response.status, contentType, cacheControl: response.headers.get("cache-control"), json };
}

/** One operation as a JSON POST, with the token's bearer header when one is given. */
export function postOperation(url: string, query: string, variables: Record<string, unknown>, token?: TokenSpec): Promise<HttpAnswer> {
  const authorization: Record<string, string> = token ? { authorization: bearer(token) } : {};
  return send(url, { query, variables }, { headers: { "content-type": "application/json", ...authorization } });
}

/** A GraphQL request as GET sends it: the operation and its variables and extensions (JSON) in the query string. */
export function getUrl(
  url: string,
  request: { query?: string; variables?: unknown; extensions?: unknown; operationName?: string },
): string {
  const parameters = new URLSearchParams();
  if (request.query !== undefined) parameters.set("query", request.query);
  if (request.operationName !== undefined) parameters.set("operationName", request.operationName);
  if (request.variables !== undefined) parameters.set("variables", JSON.stringify(request.variables));
  if (request.extensions !== undefined) parameters.set("extensions", JSON.stringify(request.extensions));
  return `${url}?${parameters}`;
}

/** The `extensions.code` of every error in the answer. */
export function errorCodes(answer: HttpAnswer): unknown[] {
  return (answer.json?.errors ?? []).map((error) => error.extensions?.code);
}

/** A port nothing listens on right now, for a child process that must be told its port before it starts. */
export async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0);
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The API over HTTP on a free port: quiet, open, in development mode and with the test settings unless `options` says otherwise. */
export function startTestHttpServer(db: Db, options: Partial<Omit<ServerOptions, "db">> = {}, port = 0): Promise<RunningServer> {
  return startHttpServer({ db, settings: TEST_SETTINGS, logger: pino({ level: "silent" }), production: false, ...options }, port);
}
