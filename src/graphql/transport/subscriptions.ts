import { randomUUID } from "node:crypto";
import type http from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout } from "node:timers/promises";
import type { ApolloServerPlugin } from "@apollo/server";
import {
  createSourceEventStream,
  execute,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
} from "graphql";
import { MessageType, type SubscribePayload } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import type { Logger } from "pino";
import { WebSocket, WebSocketServer } from "ws";
import { authenticate, type Principal } from "../../auth/principal";
import type { VerifyShopper } from "../../auth/shoppers";
import type { ConfiguredToken } from "../../auth/tokens";
import { trustedDocumentOf, type TrustedDocuments } from "../../auth/trusted-documents";
import type { ApiSettings, SubscriptionSettings } from "../../config";
import type { ErrorCode } from "../../error-codes";
import { ClientError } from "../../errors";
import type { GraphQLContext, ServerState } from "../execution/context";
import { createGraphQLErrorFormatter } from "../execution/errors";
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepJson } from "../limits/http";
import { boundedSocketClass } from "../limits/socket-bounds";
import { REQUEST_LIMITS } from "../limits/operation";
import { clientAddressOf } from "../limits/client-address";
import { DEBT_WAIT_MS, type BudgetClient, type ClientBudget } from "../limits/client-budget";
import { ANONYMOUS_OPERATION, type ServerMetrics } from "../../observability/metrics";
import { inSubscriptionSpan } from "../../observability/tracing";
import { CONFLATED_FIELDS, type LiveField } from "../live/live-sales";
import { compiledSchema, schema } from "../schema/schema";
import { compileOperation, type CompiledOperation } from "../execution/compiled-execution";
import { KeepAlive, type SocketTraffic } from "./keep-alive";
import { fragmentsOf } from "../schema/selection";
import { SharedExecutions, type NextFrames, type SubscriberLog } from "../live/shared-executions";
import { chargeOf, createOperationChecks, operationOf, parsedDocuments, type Charge } from "../execution/pipeline";
import type { CoercedVariables } from "../execution/variables";

export interface SubscriptionServerOptions {
  settings: ApiSettings;
  limits: SubscriptionSettings;
  logger: Logger;
  production: boolean;
  apiTokens?: readonly ConfiguredToken[];
  verifyShopper?: VerifyShopper | undefined;
  /** The only operations tokens marked `trustedDocumentsOnly` may subscribe with, by hash, as over HTTP. */
  trustedDocuments?: TrustedDocuments;
  server: ServerState;
  metrics?: ServerMetrics;
  /** How long a new connection may take to send `connection_init`; graphql-ws's default, 3 s, unless given. */
  connectionInitWaitTimeoutMs?: number;
  /** The HTTP clients' budgets, which a connection's refusals and heavy subscriptions are paid from; absent, nothing is charged. */
  budget?: ClientBudget;
  /** The proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES), as for HTTP's budgets; default none. */
  trustedProxies?: readonly string[];
}

export interface SubscriptionServer {
  /** For Apollo's plugins: closes every connection (1001, going away) when the server drains, and stops accepting new ones. */
  plugin: ApolloServerPlugin;
}

/** What the server knows of one acknowledged connection. */
interface Connection {
  id: string;
  principal: Principal;
  /** Whether it presented a bearer token, for /metrics. */
  token: boolean;
  /**
   * The address it counts against CONNECTIONS_PER_ADDRESS and ANONYMOUS_CONNECTIONS_PER_PROCESS; undefined for a token
   * not held to trusted documents (a server's, a router's), which answers for its own connections.
   */
  publicAddress: string | undefined;
  /** The budget its refusals and heavy subscriptions are paid from, as its HTTP requests'; undefined when none is kept. */
  client: BudgetClient | undefined;
}

/** WebSocket's own close code for "try again later": graphql-ws clients retry it, with backoff. */
const TRY_AGAIN_LATER = 1013;

/**
 * Subscriptions over graphql-ws on the HTTP server's own port and path, as Apollo Server's documentation
 * sets them up: a connection authenticates once, in `connection_init` (its `authorization` parameter carries
 * the same bearer token as HTTP's header); every subscription then passes the checks every HTTP operation
 * passes (depth, aliases, directives, tokens, input, cost, scopes) before anything runs, and the limits on
 * subscriptions and on connections without a token. Each event is resolved with a context of its own, as
 * each HTTP request is, so that nothing a loader cached for one event is served for the next.
 */
export function serveSubscriptions(httpServer: http.Server, options: SubscriptionServerOptions): SubscriptionServer {
  const { limits, logger, metrics } = options;
  const webSocketServer = new WebSocketServer({
    server: httpServer,
    path: "/graphql",
    // A WebSocket message carries the same operation and variables as an HTTP body: the same limit.
    maxPayload: REQUEST_LIMITS.maxBodyBytes,
    // Every frame written to a socket counts against its bound of unread bytes (socket-bounds.ts).
    WebSocket: boundedSocketClass(limits.unsentBytesPerConnection),
  });
  // The one formatter of both transports (errors.ts), and the pipeline's parsing, validation and checks (pipeline.ts).
  const format = createGraphQLErrorFormatter(logger, options.production);
  const documentOf = parsedDocuments(schema, "websocket");
  const checks = createOperationChecks();
  // Ours, not useServer's (given 0 below): it pings only the sockets that carried nothing for an interval.
  const keepAlive = new KeepAlive(webSocketServer, limits.subscriptionKeepAliveSeconds * 1000);
  const clientAddress = clientAddressOf(options.trustedProxies);
  const publicConnections = new AddressCounts();
  let subscriptions = 0;

  /**
   * Why a connection is refused at its connection_init, or undefined: its client is in debt, or it is a public one (no
   * token, or a public page's token, which every visitor holds) past the process's limit or its address's. A token
   * behind the storefront's proxy let 1,466 sockets in with the limit at 100 (issue 51): each visitor is its address.
   */
  async function connectionRefusal(principal: Principal, address: string, client: BudgetClient | undefined): Promise<string | undefined> {
    const debt = client && (await options.budget?.debtOf(client));
    if (debt !== undefined) {
      // Held as a client in debt's HTTP request is (client-budget.ts): an attacker that opened its socket again as soon as it
      // was closed had 2,942 connections refused in 3 s, each an upgrade and a refusal of the API's CPU. Held, it opens one
      // a second per socket, and a refusal costs a timer.
      await setTimeout(DEBT_WAIT_MS);
      return overBudget(debt);
    }
    if (!isPublic(principal)) return undefined;
    if (publicConnections.total >= limits.anonymousConnectionsPerProcess) {
      return "Too many connections without a token: try again later, or send one";
    }
    if (publicConnections.of(address) >= limits.connectionsPerAddress) {
      return `This address holds ${limits.connectionsPerAddress} connections, the most it may: close one, or try again later`;
    }
    return undefined;
  }

  /** A subscription's checks and limits; what to run, or the errors to answer with, each refusal paid from the client's budget. */
  async function startSubscription(
    { connection, socket }: ConnectionExtra,
    operations: Readonly<Record<string, unknown>>,
    id: string,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    // A client in debt is refused before its message is parsed, as its HTTP requests are before their body is read.
    const debt = connection.client && (await options.budget?.debtOf(connection.client));
    if (debt !== undefined) {
      socket.close(TRY_AGAIN_LATER, overBudget(debt));
      return [refusal("RATE_LIMITED", overBudget(debt))];
    }
    const refused = subscriptionRefusal(operations, payload);
    if (refused) return paidRefusal(connection, refused);
    // The pipeline's steps (pipeline.ts), as HTTP's plugin takes them: the document the caller may run, parsed and
    // validated with the same rules (and refused unless it is a subscription), then its variables, input, weight and scopes.
    // graphql-ws requires `query` to be a string, and Apollo Client's GraphQLWsLink sends the full text beside the hash:
    // with a hash, that text is never parsed (the manifest's document runs); without one, a text is a document of its own.
    const sentDocument = payload.query !== "" && payload.extensions?.persistedQuery === undefined;
    const trusted = trustedDocumentOf(connection.principal, options.trustedDocuments, sentDocument, payload.extensions);
    if (trusted && "refusal" in trusted) return paidRefusal(connection, [trusted.refusal]);
    const query = trusted ? trusted.document : payload.query;
    const parsed = documentOf(query);
    if ("errors" in parsed) return paidRefusal(connection, parsed.errors);
    const { document } = parsed;
    const operation = operationOf(document, payload.operationName);
    if (operation instanceof GraphQLError) return paidRefusal(connection, [operation]);
    // Coerced once, as over HTTP: the checks, the shared execution's key and the execution all read these values.
    const checked = checks.check({
      schema,
      document,
      operation,
      queryKey: query,
      variables: payload.variables,
      principal: connection.principal,
    });
    if ("refusal" in checked) return paidRefusal(connection, [checked.refusal]);
    // A heavy subscription pays its documents as a heavy HTTP request does (light ones, as over HTTP, pay nothing).
    const unpaid = await pay(connection, chargeOf("websocket", checked));
    if (unpaid) return [unpaid];
    const unavailable = await options.server.live.unavailable();
    if (unavailable) return [clientRefusal(unavailable)];
    subscriptions += 1;
    const field = rootFieldName(document, operation);
    const start: SubscriptionStart = {
      id,
      connection,
      operationName: operation.name?.value ?? ANONYMOUS_OPERATION,
      // The same text, operation and variables resolve to the same values for everyone allowed to subscribe.
      shared: CONFLATED_FIELDS.has(field)
        ? {
            key: sharedExecutionKey(query, payload.operationName, checked.variables),
            field: field as LiveField,
            frames: new SocketFrames(socket, id, keepAlive.trafficOf(socket)),
          }
        : undefined,
    };
    // No context yet: one is built for each value resolved, and none is held while the subscriber waits.
    return {
      schema,
      document,
      operationName: payload.operationName,
      variableValues: checked.variables,
      contextValue: undefined,
      rootValue: start,
    };
  }

  /** The limits a subscription meets before its text is read: the connection's and the process's subscriptions, its JSON's depth. */
  function subscriptionRefusal(operations: Readonly<Record<string, unknown>>, payload: SubscribePayload): GraphQLError[] | undefined {
    // graphql-ws has already reserved this id among the connection's operations.
    if (Object.keys(operations).length > limits.subscriptionsPerConnection) {
      return [
        refusal(
          "TOO_MANY_SUBSCRIPTIONS",
          `A connection holds at most ${limits.subscriptionsPerConnection} subscriptions: complete one first.`,
        ),
      ];
    }
    if (subscriptions >= limits.subscriptionsPerProcess) {
      return [refusal("TOO_MANY_SUBSCRIPTIONS", "This server holds as many subscriptions as it may: try again later.")];
    }
    // As refuseDeepJson does for HTTP, before anything walks them.
    if (nestsDeeperThan(payload.variables, MAX_JSON_DEPTH) || nestsDeeperThan(payload.extensions, MAX_JSON_DEPTH)) {
      return [refusal("BAD_USER_INPUT", tooDeepJson(MAX_JSON_DEPTH))];
    }
    return undefined;
  }

  /**
   * A refused subscription pays what an HTTP request refused as over the limits pays (REFUSED_DOCUMENTS and one of the
   * client's few refusals), whatever refused it: a socket sends messages far faster than HTTP requests can be made, and
   * 61,682 invalid documents in 10 s met no budget (issue 51). Refusals past the budget are RATE_LIMITED, and the
   * client's next subscription closes its connection.
   */
  async function paidRefusal(connection: Connection, errors: readonly GraphQLError[]): Promise<readonly GraphQLError[]> {
    const unpaid = await pay(connection, chargeOf("websocket", { refusal: errors[0]!, overLimits: false }));
    return unpaid ? [unpaid] : errors;
  }

  /** Pays a charge from the connection's client's budget; the refusal (RATE_LIMITED) when it cannot. */
  async function pay(connection: Connection, charge: Charge | undefined) {
    return charge && connection.client && (await options.budget?.chargeClient(connection.client, charge.documents, charge.overLimits));
  }

  const shared = new SharedExecutions({
    freshContext: () => options.server.contextFor(options.settings, ANYONE),
    live: options.server.live,
    compiledSchema,
    payloadOf: (result) => JSON.stringify(nextPayload(result)),
  });

  /** What graphql-ws's `next` message carries for a result: errors formatted as HTTP answers show them. */
  const nextPayload = (result: ExecutionResult) => (result.errors ? { ...result, errors: result.errors.map(format) } : result);

  const cleanup = useServer<Record<string, unknown>, { connection?: Connection }>(
    {
      connectionInitWaitTimeout: options.connectionInitWaitTimeoutMs,
      onConnect: async (ctx) => {
        // A proxy that holds the token for a page (the web storefront's) adds it to the upgrade request, as it does to each HTTP request.
        const authorization = authorizationOf(ctx.connectionParams) ?? ctx.extra.request.headers.authorization;
        const principal = await authenticate(options.apiTokens, options.verifyShopper, authorization);
        // connection_init is the connection's one chance to authenticate: a token that names no one is refused there (4403),
        // so that the client learns of it before it subscribes, not from each subscription.
        if (principal.kind === "unrecognized") return false;
        const token = authorization !== undefined;
        const address = clientAddress(ctx.extra.request);
        const client = options.budget?.clientOfSocket(principal, address);
        const refused = await connectionRefusal(principal, address, client);
        if (refused) {
          ctx.extra.socket.close(TRY_AGAIN_LATER, refused);
          return false;
        }
        const publicAddress = isPublic(principal) ? address : undefined;
        if (publicAddress !== undefined) publicConnections.add(publicAddress);
        ctx.extra.connection = { id: randomUUID(), principal, token, publicAddress, client };
        // The upgrade request (headers, socket state) is needed no more: held for each connection's life, it would be most of what an idle one costs.
        (ctx.extra as { request?: unknown }).request = undefined;
        metrics?.countConnection(token, 1);
        return true;
      },
      onDisconnect: (ctx) => {
        const connection = ctx.extra.connection;
        if (!connection) return;
        if (connection.publicAddress !== undefined) publicConnections.delete(connection.publicAddress);
        metrics?.countConnection(connection.token, -1);
      },
      onSubscribe: (ctx, id, payload) =>
        inSubscriptionSpan(
          "graphql.subscribe",
          { operationName: payload.operationName ?? undefined, connectionId: ctx.extra.connection!.id },
          () => startSubscription(ctx.extra as ConnectionExtra, ctx.subscriptions, id, payload),
        ),
      subscribe: async (args) => {
        const start = args.rootValue as SubscriptionStart;
        const { rootValue: _start, ...operation } = args;
        const log = new SubscriptionLog(start, logger, () => (subscriptions -= 1));
        const values = start.shared
          ? await shared.join(start.shared.key, operation, start.shared.field, start.operationName, log, start.shared.frames)
          : await ownExecution(args, () => contextFor(options, start.connection.principal), log);
        // Refused before it started: it ends here, unlogged, as a refused query is logged by its refusal alone.
        if (!(Symbol.asyncIterator in values)) log.ended();
        return values;
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => format(error)),
      // A result without errors is sent as it is: graphql-ws would otherwise copy it for each subscriber it goes to.
      onNext: (_ctx, _id, _payload, _args, result) => nextPayload(result),
    },
    webSocketServer,
    0,
  );

  return {
    plugin: {
      async serverWillStart() {
        return {
          async drainServer() {
            keepAlive.stop();
            await cleanup.dispose();
          },
        };
      },
    },
  };
}

/** A connection that counts against the limits of public connections: without a token, or with a public page's. */
function isPublic(principal: Principal): boolean {
  return principal.kind !== "token" || principal.trustedDocumentsOnly;
}

/** A client in debt's close reason (at most 123 bytes) and its subscription's refusal. */
function overBudget(seconds: number): string {
  return `This client is over its budget of heavy or refused requests: retry in ${seconds} s`;
}

/** Open connections per address, and in all. */
class AddressCounts {
  private readonly counts = new Map<string, number>();
  total = 0;

  of(address: string): number {
    return this.counts.get(address) ?? 0;
  }

  add(address: string): void {
    this.counts.set(address, this.of(address) + 1);
    this.total += 1;
  }

  delete(address: string): void {
    const left = this.of(address) - 1;
    if (left > 0) this.counts.set(address, left);
    else this.counts.delete(address);
    this.total -= 1;
  }
}

/** What `subscribe` is handed about its subscription, as the root value graphql-ws passes through. */
interface SubscriptionStart {
  id: string;
  connection: Connection;
  operationName: string;
  /**
   * For a conflated field: the shared execution it joins (by its operation's text, name and variables), the field, and
   * the socket its values are written to.
   */
  shared: { key: string; field: LiveField; frames: NextFrames } | undefined;
}

/** graphql-ws's `extra` of an acknowledged connection: the socket, and what `onConnect` learnt of it. */
interface ConnectionExtra {
  socket: WebSocket;
  connection: Connection;
}

/**
 * A subscription's `next` messages as graphql-ws's `stringifyMessage` writes them (`id`, `type`, `payload`, in that
 * order), the payload spliced in as serialized once for all its subscribers. A class: thousands of idle subscribers hold one.
 */
class SocketFrames implements NextFrames {
  private readonly head: string;

  constructor(
    private readonly socket: WebSocket,
    id: string,
    /** Undefined when the socket closed before the subscription started: nothing is written to it then. */
    private readonly traffic: SocketTraffic | undefined,
  ) {
    this.head = `{"id":${JSON.stringify(id)},"type":"${MessageType.Next}","payload":`;
  }

  open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  write(payload: string, written: (error?: Error) => void): void {
    this.traffic?.seen();
    this.socket.send(`${this.head}${payload}}`, written);
  }
}

/**
 * The principal a shared execution's contexts carry: its subscribers' access was checked when each subscribed,
 * and no resolver reads who asks.
 */
const ANYONE: Principal = { kind: "anonymous" };

/** The operation's one root field (a subscription selects exactly one), through its fragments. */
function rootFieldName(document: DocumentNode, operation: OperationDefinitionNode): string {
  let selections = operation.selectionSet.selections;
  for (;;) {
    const first = selections[0];
    if (!first) return "";
    if (first.kind === Kind.FIELD) return first.name.value;
    if (first.kind === Kind.INLINE_FRAGMENT) selections = first.selectionSet.selections;
    else {
      const fragment = fragmentsOf(document).get(first.name.value);
      if (!fragment) return "";
      selections = fragment.selectionSet.selections;
    }
  }
}

/**
 * What subscribers of one shared execution have in common: the text, the operation's name, and the variables as the
 * operation coerces them (as its checks read them and its execution runs with them), in the order it declares them,
 * so that the same variables sent with their keys in another order, a default left out or sent, or a single id for a
 * list of one, share an execution.
 */
function sharedExecutionKey(query: string, operationName: string | null | undefined, variables: CoercedVariables): string {
  return JSON.stringify([query, operationName ?? null, variables]);
}

/** connectionParams as Apollo Client's and urql's docs show them, `{ authorization: "Bearer ..." }`, or with the header's capital. */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.["authorization"] ?? params?.["Authorization"];
  return typeof value === "string" ? value : undefined;
}

function contextFor(options: SubscriptionServerOptions, principal: Principal): GraphQLContext {
  return options.server.contextFor(options.settings, principal);
}

function refusal(code: ErrorCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

function clientRefusal(error: ClientError): GraphQLError {
  return new GraphQLError(error.message, { originalError: error, extensions: { code: error.code, ...error.extensions() } });
}

/** Each subscription text's operations, compiled once for all who subscribe with it (the checker holds one document per text). */
const compiledOperations = new WeakMap<DocumentNode, Map<string, CompiledOperation | undefined>>();

function compiledFor(document: DocumentNode, operationName: string | null | undefined): CompiledOperation | undefined {
  let operations = compiledOperations.get(document);
  if (!operations) compiledOperations.set(document, (operations = new Map()));
  const name = operationName ?? "";
  if (!operations.has(name)) operations.set(name, compileOperation(compiledSchema, document, operationName));
  return operations.get(name);
}

/**
 * graphql-js's `subscribe` for one subscriber (a field whose values differ between subscribers, as `newBuyers'`
 * missed counts do), with a fresh context for each event; `log` hears of its start, each value and its end. Ending
 * the iterator (the client completed, or the connection closed) ends the source at once, even while it waits for an
 * event: an async generator would wait for that event first.
 */
async function ownExecution(
  args: ExecutionArgs,
  freshContext: () => GraphQLContext,
  log: SubscriberLog,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const start = args.rootValue as SubscriptionStart;
  const source = await createSourceEventStream({ ...args, contextValue: freshContext() });
  if (!(Symbol.asyncIterator in source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  const span = { operationName: start.operationName, connectionId: start.connection.id };
  const compiled = compiledFor(args.document, args.operationName);
  // Compiled, as every operation runs, traced or not; graphql-js only for what graphql-jit cannot compile.
  const run = (event: unknown) =>
    compiled
      ? compiled(event, freshContext(), args.variableValues ?? {})
      : execute({ ...args, rootValue: event, contextValue: freshContext() });
  const resolve = async (event: unknown): Promise<IteratorResult<ExecutionResult>> => {
    const value = await inSubscriptionSpan("graphql.subscription.event", span, async () => run(event));
    log.delivered();
    return { value, done: false };
  };
  // Whichever way it ends, the source stops listening.
  const end = async (): Promise<IteratorResult<ExecutionResult>> => {
    log.ended();
    await iterator.return?.();
    return { value: undefined, done: true };
  };
  const events: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      try {
        const event = await iterator.next();
        return event.done ? await end() : await resolve(event.value);
      } catch (error) {
        // graphql-ws sends the error and forgets the subscription without calling return().
        await end();
        throw error;
      }
    },
    return: end,
    [Symbol.asyncIterator]: () => events,
  };
  log.started();
  return events;
}

/**
 * A subscription's start and end in the request log, and `onEnd` once it ends (or at once, when it was refused before it
 * started). A class, not closures, since thousands of idle subscribers each hold one.
 */
class SubscriptionLog implements SubscriberLog {
  /** When it started; undefined until it has, and for one refused before it did, which is not logged. */
  private startedAt: number | undefined;
  private events = 0;
  private over = false;

  constructor(
    private readonly start: SubscriptionStart,
    private readonly logger: Logger,
    private readonly onEnd: () => void,
  ) {}

  started(): void {
    this.startedAt = performance.now();
    this.logger.info(this.line(), "graphql subscription started");
  }

  delivered(): void {
    this.events += 1;
  }

  /** Once, however often it is said. */
  ended(): void {
    if (this.over) return;
    this.over = true;
    this.onEnd();
    if (this.startedAt === undefined) return;
    const ended = { ...this.line(), durationMs: Math.round(performance.now() - this.startedAt), events: this.events };
    this.logger.info(ended, "graphql subscription ended");
  }

  private line() {
    const { id, connection, operationName } = this.start;
    return { subscriptionId: id, connectionId: connection.id, operationName, operationType: "subscription" };
  }
}
