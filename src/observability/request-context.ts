import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { preHandlerHookHandler } from "fastify";
import type { CommandStartedEvent, MongoClient } from "mongodb";

/** What is known about the HTTP request being served, wherever in its async chain code runs. */
export interface RequestContext {
  requestId: string;
  /** Commands this request has sent to MongoDB so far. */
  databaseCommands: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const REQUEST_ID_HEADER = "x-request-id";

// Ids travel into logs and back out in a header: printable, no spaces, short.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's request id when it is safe to log and echo, otherwise a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === "string" && ACCEPTABLE_REQUEST_ID.test(header) ? header : randomUUID();
}

export function newRequestContext(requestId: string = randomUUID()): RequestContext {
  return { requestId, databaseCommands: 0 };
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Runs the rest of the request inside its own context and echoes its id in the response: a Fastify
 * `preHandler` hook, so the body has been read (stream events would otherwise resume outside the context)
 * and the handler, which Fastify calls from `done`, runs inside it.
 */
export const requestContextHook: preHandlerHookHandler = (request, reply, done) => {
  const context = newRequestContext(requestIdFrom(request.headers[REQUEST_ID_HEADER]));
  reply.header(REQUEST_ID_HEADER, context.requestId);
  storage.run(context, done);
};

/**
 * Attributes every command the client sends to the request whose async chain sent it (the driver
 * emits `commandStarted` synchronously inside the operation's call). Needs a client created with
 * `monitorCommands: true`. Returns the function that stops listening.
 */
export function countDatabaseCommands(client: MongoClient, onCommand: (event: CommandStartedEvent) => void = () => {}): () => void {
  const listener = (event: CommandStartedEvent) => {
    const context = storage.getStore();
    if (context) context.databaseCommands += 1;
    onCommand(event);
  };
  client.on("commandStarted", listener);
  return () => void client.off("commandStarted", listener);
}
