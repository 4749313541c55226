import { once } from "node:events";
import type { FormattedExecutionResult } from "graphql";
import { createClient, type Client, type ClientOptions } from "graphql-ws";
import WebSocket from "ws";
import { scrapeMetrics } from "./metrics";
import { bearer, type TokenSpec } from "./tokens";

/** The WebSocket URL of an API whose HTTP endpoint is `url`: the same host, port and path. */
export function webSocketUrl(url: string): string {
  return url.replace(/^http/, "ws");
}

/**
 * The graphql-ws client over a real WebSocket, as Apollo Client's GraphQLWsLink and urql create it;
 * with a token, `connectionParams` carries it as `authorization`. It does not retry: a test sees each close.
 */
export function subscriptionClient(url: string, token?: TokenSpec, options: Partial<ClientOptions> = {}): Client {
  return createClient({
    url: webSocketUrl(url),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: token ? { authorization: bearer(token) } : {},
    ...options,
  });
}

/** One value as the client receives it: data, or errors with their codes. */
export type ExecutionResult<T> = FormattedExecutionResult<T, unknown>;

/** One subscription's values as they arrive, read one at a time, with how it ended. */
export interface Subscription<T> {
  /** The next value, waiting for it if need be. */
  next(): Promise<ExecutionResult<T>>;
  /** Values until one satisfies `done`, which is returned. */
  until(done: (value: ExecutionResult<T>) => boolean): Promise<ExecutionResult<T>>;
  /** Resolves once the server completed it or an error ended it (with the error). */
  ended: Promise<unknown>;
  /** Completes it from the client's side. */
  stop(): void;
}

/** Subscribes and buffers every value; each test reads them in order. */
export function subscribe<T = Record<string, unknown>>(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
  extensions?: Record<string, unknown>,
): Subscription<T> {
  const values: ExecutionResult<T>[] = [];
  const waiting: ((value: ExecutionResult<T>) => void)[] = [];
  let finish: (error?: unknown) => void = () => {};
  const ended = new Promise<unknown>((resolve) => (finish = resolve));
  const stop = client.subscribe<T>(
    { query, variables, extensions },
    {
      next: (value) => {
        const waiter = waiting.shift();
        if (waiter) waiter(value);
        else values.push(value);
      },
      error: (error) => finish(error),
      complete: () => finish(),
    },
  );
  const next = () => {
    const value = values.shift();
    if (value) return Promise.resolve(value);
    // Not tracked as an operation in flight: a value that never comes would hold every later test up, where jest's timeout fails this one.
    return Promise.race([
      new Promise<ExecutionResult<T>>((resolve) => waiting.push(resolve)),
      ended.then((error) => Promise.reject(new Error(`the subscription ended before another value: ${describe(error)}`))),
    ]);
  };
  const until = async (done: (value: ExecutionResult<T>) => boolean) => {
    for (;;) {
      const value = await next();
      if (done(value)) return value;
    }
  };
  return { next, until, ended, stop };
}

function describe(error: unknown): string {
  if (error === undefined) return "completed";
  if (Array.isArray(error)) return JSON.stringify(error);
  if (error && typeof error === "object" && "code" in error)
    return `closed with ${String(error.code)} ${String((error as { reason?: unknown }).reason)}`;
  return String(error);
}

/** A bare WebSocket speaking graphql-transport-ws, for what no well-behaved client sends. */
export async function rawSocket(url: string): Promise<{ socket: WebSocket; send(message: unknown): void; closed: Promise<number> }> {
  const socket = new WebSocket(webSocketUrl(url), "graphql-transport-ws");
  const closed = once(socket, "close").then(([code]) => code as number);
  await once(socket, "open");
  return { socket, send: (message) => socket.send(typeof message === "string" ? message : JSON.stringify(message)), closed };
}

/** The messages a bare socket receives, parsed. */
export function messagesOf(socket: WebSocket): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  return messages;
}

/** Resolves once the server at `url` holds `count` open subscriptions of `field`: they listen from then on. */
export async function subscriptionsOpen(url: string, field: string, count: number): Promise<void> {
  while ((await scrapeMetrics({ url })).sample("bookstore_subscriptions", `field="${field}"`) !== count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
