// Types only, erased from the build; `with` matches them to the ES modules the lazy import()s load.
import type { Context, ContextAPI, TraceAPI } from "@opentelemetry/api" with { "resolution-mode": "import" };
import type { NodeSDK } from "@opentelemetry/sdk-node" with { "resolution-mode": "import" };
import type { Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace" with { "resolution-mode": "import" };

/**
 * OpenTelemetry traces, off unless the operator asks for them with the standard variables. The SDK,
 * its exporters and the instrumentations are imported lazily, from `startTracing`: with tracing off
 * none of them loads (prom-client loads the API package regardless, which does nothing without an
 * SDK), and `withBookOnSpans` costs one comparison. The instrumentations patch `http`, `graphql`
 * and the `mongodb` driver as they are loaded, so `src/cli/start.ts` starts tracing before it imports
 * the API's modules.
 */

/** The span attribute naming the book an operation concerns: on its resolver's span and every span beneath, database commands included. */
export const BOOK_ID_ATTRIBUTE = "bookstore.book.id";

/** The service name traces carry unless OTEL_SERVICE_NAME names another. */
const SERVICE_NAME = "bookstore-sales-catalog";

/** Probes and scrapes arrive every few seconds from machines, not callers: tracing them would bury the requests. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

interface ActiveTracing {
  sdk: NodeSDK;
  context: ContextAPI;
  trace: TraceAPI;
  /** The context entry under which `withBookOnSpans` keeps the book id for the spans started beneath it. */
  bookIdKey: symbol;
}

let active: ActiveTracing | undefined;

/**
 * True when the environment asks for traces: an OTLP endpoint, or an exporter named in
 * OTEL_TRACES_EXPORTER other than `none`; OTEL_SDK_DISABLED=true turns them off whatever else is set.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporters) return exporters.toLowerCase() !== "none";
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Starts tracing when the environment asks for it (see `tracingRequested`); otherwise loads nothing. */
export async function startTracingIfRequested(env: NodeJS.ProcessEnv): Promise<void> {
  if (tracingRequested(env)) await startTracing(env);
}

/**
 * Starts the OpenTelemetry Node SDK with the instrumentations for `http` (the request's server span, under
 * which Fastify's handling runs), `graphql` and `mongodb`, exporting to `exportTo` when given (tests pass an in-memory exporter's processor), else
 * as OTEL_TRACES_EXPORTER says: `otlp` (the default; OTLP over HTTP, protobuf unless
 * OTEL_EXPORTER_OTLP_PROTOCOL is `http/json`) or `console`. Traces only: the API has its own /metrics and log.
 */
export async function startTracing(env: NodeJS.ProcessEnv, exportTo?: SpanProcessor[]): Promise<void> {
  if (active) throw new Error("tracing has already started in this process");
  const [api, { NodeSDK }, instrumentations, processors] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-node"),
    loadInstrumentations(),
    exportTo ? Promise.resolve(exportTo) : spanProcessorsFromEnvironment(env),
  ]);
  const bookIdKey = api.createContextKey(BOOK_ID_ATTRIBUTE);
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: SERVICE_NAME }),
    instrumentations,
    spanProcessors: [bookIdOnSpans(bookIdKey), personalDataOffSpans(), ...processors],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  active = { sdk, context: api.context, trace: api.trace, bookIdKey };
}

/** Exports the spans still buffered and stops tracing; does nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  await stopping?.sdk.shutdown();
}

/**
 * Runs an operation's compiled execution (`work`) in a span named as the GraphQL instrumentation names graphql-js'
 * execution, with the same attributes (the operation's type and name; never its document or variables): graphql-jit
 * runs no `execute` for the instrumentation to see, and has no per-resolver spans to give. A book id set by a
 * resolver (`withBookOnSpans`) lands on it, every database command's span hangs under it, and each error of the
 * answer is an exception event on it, typed by its code, as a failed resolver's span has one (`personalDataOffSpans`
 * takes its message off). Costs nothing with tracing off.
 */
export function inOperationSpan<T extends { errors?: readonly Error[] }>(
  operationName: string | undefined,
  operationType: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!active) return work();
  const attributes = operationAttributes(operationType, operationName);
  return active.trace.getTracer(SERVICE_NAME).startActiveSpan(spanName(operationType, operationName), { attributes }, async (span) => {
    try {
      const result = await work();
      for (const error of result.errors ?? []) span.recordException(thrownError(error));
      if (result.errors?.length) span.setStatus({ code: SPAN_STATUS_ERROR });
      return result;
    } finally {
      span.end();
    }
  });
}

/** The attributes a GraphQL span of the API names its operation by, as the GraphQL instrumentation does: never its document or variables. */
function operationAttributes(operationType: string, operationName: string | undefined): Record<string, string> {
  return { "graphql.operation.type": operationType, ...(operationName === undefined ? {} : { "graphql.operation.name": operationName }) };
}

/** A span's name: what it is, then the operation's name when it has one. */
function spanName(what: string, operationName: string | undefined): string {
  return operationName === undefined ? what : `${what} ${operationName}`;
}

/** OpenTelemetry's `SpanStatusCode.ERROR`, without loading its API package when tracing is off. */
const SPAN_STATUS_ERROR = 2;

/** What a resolver threw (a ClientError carries its code), rather than GraphQL's wrapper of it. */
function thrownError(error: Error): Error {
  const original = (error as { originalError?: unknown }).originalError;
  return original instanceof Error ? original : error;
}

/**
 * Runs `work` with `bookId` as an attribute of the span it runs in (its resolver's) and of every span
 * started inside it (each database command's), so that a trace shows which book an operation
 * concerned. Only ever a book id: a customer id is personal data, which traces leave to the database.
 */
export function withBookOnSpans<T>(bookId: string, work: () => T): T {
  if (!active) return work();
  const { context, trace, bookIdKey } = active;
  trace.getActiveSpan()?.setAttribute(BOOK_ID_ATTRIBUTE, bookId);
  return context.with(context.active().setValue(bookIdKey, bookId), work);
}

/** The span attributes naming a subscription: never its variables, which may hold customer ids. */
export interface SubscriptionSpan {
  /** Undefined while unknown: a subscribe message need not name its operation, and its document is not yet parsed. */
  operationName: string | undefined;
  /** The server's own id for the subscription's connection, the one its log lines carry (the subscription's id is the client's). */
  connectionId?: string;
  /** For a value resolved once for every subscriber of one operation (a shared execution): how many there are. */
  subscribers?: number;
}

/**
 * Runs `work` (a subscription's checks, or the resolving of one of its events) in a span of its own, at the
 * root of a trace of its own: a WebSocket message belongs to no HTTP request, and a subscription lasts longer
 * than any trace should. The span names the operation and the connection, as the log lines do; each database
 * command's span hangs under it (the compiled operation has no per-resolver spans). Costs nothing with tracing off.
 */
export function inSubscriptionSpan<T>(
  name: "graphql.subscribe" | "graphql.subscription.event",
  { operationName, connectionId, subscribers }: SubscriptionSpan,
  work: () => Promise<T>,
): Promise<T> {
  if (!active) return work();
  const attributes = {
    ...operationAttributes("subscription", operationName),
    ...(connectionId === undefined ? {} : { "bookstore.subscription.connection_id": connectionId }),
    ...(subscribers === undefined ? {} : { "bookstore.subscription.subscribers": subscribers }),
  };
  return active.trace
    .getTracer(SERVICE_NAME)
    .startActiveSpan(spanName(name, operationName), { root: true, attributes }, (span) => work().finally(() => span.end()));
}

async function loadInstrumentations() {
  const [{ HttpInstrumentation }, { GraphQLInstrumentation }, { MongoDBInstrumentation }] = await Promise.all([
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-graphql"),
    import("@opentelemetry/instrumentation-mongodb"),
  ]);
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(pathOf(request.url)) }),
    // A span for each field that only reads a property would outnumber the operation's real work many times over.
    // allowValues false (its default, kept explicit): literals in the document become "*", variables are left out; both may be customer ids.
    new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true, allowValues: false }),
    new MongoDBInstrumentation({ dbStatementSerializer: commandShape }),
  ];
}

/**
 * A command as `db.query.text`: its field names, never its values. A purchase's commands carry the
 * customer's id (in `$push`, in a claim's filter), which must not leave the database through traces,
 * whatever the instrumentation's own default or `enhancedDatabaseReporting` would do.
 */
export function commandShape(command: Record<string, unknown>): string {
  return JSON.stringify(command, (_key, value: unknown) => (typeof value === "object" && value !== null ? value : "?"));
}

async function spanProcessorsFromEnvironment(env: NodeJS.ProcessEnv): Promise<SpanProcessor[]> {
  const { BatchSpanProcessor, ConsoleSpanExporter } = await import("@opentelemetry/sdk-trace");
  const names = (env.OTEL_TRACES_EXPORTER?.trim() || "otlp").split(",").map((name) => name.trim().toLowerCase());
  const processors: SpanProcessor[] = [];
  for (const name of new Set(names)) {
    const exporter = name === "otlp" ? await otlpExporter(env) : name === "console" ? new ConsoleSpanExporter() : undefined;
    if (!exporter)
      throw new Error(`OTEL_TRACES_EXPORTER names "${name}", which this API does not export to: set it to otlp, console or none`);
    processors.push(new BatchSpanProcessor({ exporter, ...batchingFromEnvironment(env) }));
  }
  return processors;
}

/** The standard OTEL_BSP_* variables, as the SDK reads them when it builds its own processors. */
function batchingFromEnvironment(env: NodeJS.ProcessEnv) {
  const variables = {
    maxQueueSize: "OTEL_BSP_MAX_QUEUE_SIZE",
    scheduledDelayMillis: "OTEL_BSP_SCHEDULE_DELAY",
    exportTimeoutMillis: "OTEL_BSP_EXPORT_TIMEOUT",
    maxExportBatchSize: "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
  } as const;
  const options: Partial<Record<keyof typeof variables, number>> = {};
  for (const [option, variable] of Object.entries(variables) as [keyof typeof variables, string][]) {
    const value = Number(env[variable]?.trim() || Number.NaN);
    if (Number.isFinite(value) && value >= 0) options[option] = value;
  }
  return options;
}

async function otlpExporter(env: NodeJS.ProcessEnv): Promise<SpanExporter> {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf").trim();
  // The exporters read the endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables themselves.
  if (protocol === "http/protobuf") return new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter();
  if (protocol === "http/json") return new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter();
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL is "${protocol}": this API exports OTLP over HTTP, so set it to http/protobuf or http/json`);
}

/** Copies the book id `withBookOnSpans` put in the context onto each span started there. */
function bookIdOnSpans(bookIdKey: symbol): SpanProcessor {
  return {
    onStart(span: Span, parentContext: Context) {
      const bookId = parentContext.getValue(bookIdKey);
      if (typeof bookId === "string") span.setAttribute(BOOK_ID_ATTRIBUTE, bookId);
    },
    onEnd: () => {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

/** Every query parameter's value, as the HTTP instrumentation writes its own redactions. */
const REDACTED = "REDACTED";

/**
 * Takes off each span, as it ends and before any exporter sees it, what a caller sent that may be personal:
 * the values of the URL's query parameters (a GET's `variables`, and its `query` with literals in it, carry
 * customer and purchase ids), and error messages, which may quote an input (PURCHASE_ID_CONFLICT names the
 * purchaseId) in the span's status and in its exception events' message and stack trace. The error's type
 * (its code) and the stack's frames stay, which is what an operator needs to find the error in the log.
 * `onEnding` is the SDK's one hook where a span can still be changed; it is marked experimental there, so
 * test/api/tracing.test.ts scans every exported byte and fails should it stop being called.
 */
function personalDataOffSpans(): SpanProcessor {
  return {
    onStart: () => {},
    onEnding(span: Span) {
      const query = span.attributes[ATTR_URL_QUERY];
      if (typeof query === "string") span.setAttribute(ATTR_URL_QUERY, redactedQuery(query));
      if (span.status.message !== undefined) span.setStatus({ code: span.status.code });
      span.events.forEach((event, index) => {
        if (event.name !== "exception" || !event.attributes) return;
        const { [ATTR_EXCEPTION_MESSAGE]: _message, [ATTR_EXCEPTION_STACKTRACE]: stack, ...kept } = event.attributes;
        const frames = typeof stack === "string" ? { [ATTR_EXCEPTION_STACKTRACE]: stackFrames(stack) } : {};
        span.events[index] = { ...event, attributes: { ...kept, ...frames } };
      });
    },
    onEnd: () => {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

const ATTR_URL_QUERY = "url.query";
const ATTR_EXCEPTION_MESSAGE = "exception.message";
const ATTR_EXCEPTION_STACKTRACE = "exception.stacktrace";

function redactedQuery(query: string): string {
  const parameters = new URLSearchParams(query);
  for (const name of new Set(parameters.keys())) parameters.set(name, REDACTED);
  return parameters.toString();
}

/** A stack trace's frames, without the lines before them: `Name: message`, the message on as many lines as it has. */
function stackFrames(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
}

function pathOf(url: string | undefined): string {
  return (url ?? "").split("?", 1)[0] ?? "";
}
