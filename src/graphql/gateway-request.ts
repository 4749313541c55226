import { dirname, join } from "node:path";
import type {
  ApolloServer,
  ApolloServerOptionsWithGateway,
  BaseContext,
  GraphQLRequestContextExecutionDidStart,
  HeaderMap,
} from "@apollo/server";

export type Gateway = ApolloServerOptionsWithGateway<BaseContext>["gateway"];
export type Executor = NonNullable<Awaited<ReturnType<Gateway["load"]>>["executor"]>;
/** What Apollo hands a gateway's executor for each operation. */
export type GatewayRequest = Parameters<Executor>[0];
type FetcherHeaders = NonNullable<GatewayRequest["request"]["http"]>["headers"];

/** The part of Apollo's internals its gateway request reads. */
interface ApolloInternals {
  includeStacktraceInErrorResponses: boolean;
}

/** Apollo's request or response head: its header map, and the status the gateway may read or set. */
interface HttpHead {
  headers: HeaderMap;
  status?: number;
}

/** A header map as the Fetch API's headers, which is how the gateway interface hands them over (as Apollo's own wrapper does). */
class HeadersOfMap implements FetcherHeaders {
  constructor(private readonly map: HeaderMap) {}
  append(name: string, value: string): void {
    const present = this.map.get(name);
    this.map.set(name, present === undefined ? value : `${present}, ${value}`);
  }
  delete(name: string): void {
    this.map.delete(name);
  }
  get(name: string): string | null {
    return this.map.get(name) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name);
  }
  set(name: string, value: string): void {
    this.map.set(name, value);
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  values(): IterableIterator<string> {
    return this.map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

/**
 * The answer's head as the gateway sees it, its status read from and written to Apollo's, on the prototype. Apollo
 * Server 5.5.1 makes it an object literal with a getter and setter of its own, per request: V8 gives each such object
 * a fresh accessor pair in the old generation, whose closures (and the copy of Apollo's request context they close
 * over, with the request, the answer, the context value and the cache policy) then outlive every scavenge until the
 * next mark-compact. That was all the API's `{ __typename }` promoted (docs/benchmarks/analysis.md).
 */
class ResponseHead {
  readonly headers: HeadersOfMap;
  constructor(private readonly head: HttpHead) {
    this.headers = new HeadersOfMap(head.headers);
  }
  get status(): number | undefined {
    return this.head.status;
  }
  set status(status: number | undefined) {
    this.head.status = status;
  }
}

/** Apollo's `makeGatewayGraphQLRequestContext`, field for field, but for its response head (above). */
export function gatewayRequestOf(
  context: GraphQLRequestContextExecutionDidStart<BaseContext>,
  server: ApolloServer<BaseContext>,
  internals: ApolloInternals,
): GatewayRequest {
  const request: GatewayRequest["request"] = {};
  const sent = context.request;
  if ("query" in sent) request.query = sent.query;
  if ("operationName" in sent) request.operationName = sent.operationName;
  if ("variables" in sent) request.variables = sent.variables;
  if ("extensions" in sent) request.extensions = sent.extensions;
  if (sent.http) {
    const { search } = sent.http;
    const question = search !== "" && !search.startsWith("?") ? "?" : "";
    request.http = {
      method: sent.http.method,
      url: `https://unknown-url.invalid/${question}${search}`,
      headers: new HeadersOfMap(sent.http.headers),
    };
  }
  return {
    request,
    response: { http: new ResponseHead(context.response.http) },
    logger: server.logger,
    schema: context.schema,
    schemaHash: "schemaHash no longer exists since Apollo Server 4" as GatewayRequest["schemaHash"],
    context: context.contextValue,
    cache: server.cache,
    queryHash: context.queryHash,
    document: context.document,
    source: context.source,
    operationName: context.operationName,
    operation: context.operation,
    errors: context.errors,
    metrics: context.metrics,
    debug: internals.includeStacktraceInErrorResponses,
    overallCachePolicy: context.overallCachePolicy,
    requestIsBatched: context.requestIsBatched,
  };
}

/** The module of Apollo's request pipeline that builds the gateway's request; the pipeline reads its export at each call. */
const APOLLO_GATEWAY_REQUEST = join(dirname(require.resolve("@apollo/server")), "utils", "makeGatewayGraphQLRequestContext.js");

/**
 * Has Apollo build its gateway requests with `gatewayRequestOf`. Apollo offers no option for it, and its fix belongs
 * upstream; until then this is the one place the API reaches into Apollo's modules, and it fails start-up rather than
 * serve on silently if a release moves the function.
 */
export function buildGatewayRequestsWithoutOwnAccessors(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Apollo's own instance of the module, by its path
  const pipelineModule = require(APOLLO_GATEWAY_REQUEST) as { makeGatewayGraphQLRequestContext?: unknown };
  if (typeof pipelineModule.makeGatewayGraphQLRequestContext !== "function") {
    throw new Error(`@apollo/server no longer builds gateway requests in ${APOLLO_GATEWAY_REQUEST}: see src/graphql/gateway-request.ts`);
  }
  pipelineModule.makeGatewayGraphQLRequestContext = gatewayRequestOf;
}
