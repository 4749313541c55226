import { execute, GraphQLError, Kind, parse, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { LRUCache } from "lru-cache";
import type { ApolloServerOptionsWithGateway, BaseContext } from "@apollo/server";
import { inOperationSpan } from "../../observability/tracing";

export type Gateway = ApolloServerOptionsWithGateway<BaseContext>["gateway"];
type Executor = NonNullable<Awaited<ReturnType<Gateway["load"]>>["executor"]>;
/** What Apollo hands a gateway's executor for each operation. */
export type GatewayRequest = Parameters<Executor>[0];

/** Why an operation was run by graphql-js rather than compiled: graphql-jit could not compile it. */
export type InterpretedReason = "not_compilable";

/** When an operation was compiled: before the first request (a trusted document's), or by the first request that ran it. */
export type CompiledWhen = "startup" | "first_request";

export interface CompiledExecutionOptions {
  /** The schema Apollo validates against and plugins may instrument (it wraps its resolvers for `willResolveField`). */
  schema: GraphQLSchema;
  /**
   * The same schema built a second time, for graphql-jit alone: Apollo's wrapped resolvers would turn every field,
   * a property read included, into a resolver call, which is most of what compiling saves.
   */
  compiledSchema: GraphQLSchema;
  /** Counts each operation run by graphql-js, and why. */
  onInterpreted?: (reason: InterpretedReason) => void;
  /**
   * Documents whose queries and mutations are compiled before the first request, by their SHA-256 (Apollo's hash of
   * the text a request runs): the trusted documents, which are all a storefront held to them can send, so that none
   * of its first requests after a deploy waits for graphql-jit.
   */
  prepared?: ReadonlyMap<string, string>;
  /** Counts each operation compiled (or found not compilable), and when. */
  onCompiled?: (when: CompiledWhen) => void;
}

/** Compiled operations kept: a storefront sends a handful; each holds a generated function and its document. */
const MAX_COMPILED_OPERATIONS = 1_000;

/** Where an operation's compiled query is kept: the SHA-256 of its document's text and the operation's name. */
function compiledKey(queryHash: string, operationName: string | null | undefined): string {
  return `${queryHash}:${operationName ?? ""}`;
}

/** graphql-js for what cannot be compiled; a marker, so that the attempt is made once per operation. */
const NOT_COMPILABLE = "not_compilable";

/**
 * graphql-jit's errors are its own objects on graphql-js' prototype, which copy whatever `extensions` the thrown
 * error has (a method, for this API's ClientError) and keep no `nodes`: remade as graphql-js makes them, at the same
 * locations. A field's own failure (a null in a non-null field) is, in graphql-js, an Error it then locates: the
 * error formatter and the log see the same here.
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const originalError = error.originalError ?? (error.path ? new Error(error.message) : undefined);
  const remade = new GraphQLError(error.message, { path: error.path, originalError });
  // graphql-js works locations out from nodes, which graphql-jit does not keep; the ones it found are the same.
  return Object.assign(remade, { locations: error.locations });
}

/** graphql-jit's result with its errors remade as graphql-js makes them. */
function asGraphQLJsResult(result: ExecutionResult): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.map(asGraphQLJsError) } : result;
}

/** One compiled operation run for a root value: a shared subscription execution runs one for each value. */
export type CompiledOperation = (
  rootValue: unknown,
  context: unknown,
  variables: Readonly<Record<string, unknown>>,
) => Promise<ExecutionResult>;

/**
 * An operation compiled once by graphql-jit and run many times, each time from a root value of its own (a
 * subscription's event), its errors as graphql-js words them; undefined when graphql-jit cannot compile it.
 * Variables are those the operation was subscribed with: checked then, so none is refused here.
 */
export function compileOperation(
  compiledSchema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): CompiledOperation | undefined {
  const compiled = compileQuery(compiledSchema, document, operationName ?? undefined);
  if (!isCompiledQuery(compiled)) return undefined;
  return async (rootValue, context, variables) => asGraphQLJsResult(await compiled.query(rootValue, context, variables));
}

/**
 * Apollo Server's gateway interface, its documented way to replace how an operation is executed, serving this
 * API's own schema with graphql-jit: each operation is compiled once (keyed by Apollo's hash of the query text and
 * the operation's name; the `prepared` documents' before the first request), then run as a generated function.
 * Everything before execution stays Apollo's: parsing, validation, and every plugin's `didResolveOperation` (limits, access, input checks), cache reads and
 * `willSendResponse` (request log, metrics, cache headers). Cache hints do not need the resolvers (see
 * `staticCachePolicyPlugin`). Traced or not, the same compiled function runs: while tracing, inside an operation span.
 */
export function compiledExecution({
  schema,
  compiledSchema,
  onInterpreted,
  prepared = new Map(),
  onCompiled,
}: CompiledExecutionOptions): Gateway {
  const compiled = new LRUCache<string, CompiledQuery | typeof NOT_COMPILABLE>({ max: MAX_COMPILED_OPERATIONS });
  const compile = (key: string, document: DocumentNode, operationName: string | undefined, when: CompiledWhen) => {
    const result = compileQuery(compiledSchema, document, operationName);
    const entry = isCompiledQuery(result) ? result : NOT_COMPILABLE;
    compiled.set(key, entry);
    onCompiled?.(when);
    return entry;
  };
  for (const [hash, text] of prepared) {
    // A manifest's document that does not parse is refused by Apollo on every request, as it would be unprepared.
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch {
      continue;
    }
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation === "subscription") continue;
      compile(compiledKey(hash, definition.name?.value), document, definition.name?.value, "startup");
    }
  }
  const compiledFor = (request: GatewayRequest) => {
    const key = compiledKey(request.queryHash, request.operationName);
    return compiled.get(key) ?? compile(key, request.document, request.operationName ?? undefined, "first_request");
  };
  const interpret = (request: GatewayRequest, reason?: InterpretedReason) => {
    if (reason) onInterpreted?.(reason);
    return execute({
      schema: request.schema,
      document: request.document,
      contextValue: request.context,
      variableValues: request.request.variables,
      // The name the client sent: `request.operationName` is the one Apollo resolved, null when it resolved none.
      operationName: request.request.operationName,
    });
  };
  const executor: Executor = async (request) => {
    // No operation resolved (a name the document lacks, several without a name): graphql-js words the refusal, which
    // Apollo answers OPERATION_RESOLUTION_FAILURE; it runs nothing.
    if (!request.operation) return interpret(request);
    const query = compiledFor(request);
    if (query === NOT_COMPILABLE) return interpret(request, "not_compilable");
    // Coerced by the operation pipeline (pipeline.ts), as every check read them: graphql-jit's own coercion finds nothing left to change.
    const variables = request.request.variables ?? {};
    const run = async () => asGraphQLJsResult(await query.query(undefined, request.context, variables));
    return inOperationSpan(request.operationName ?? undefined, request.operation.operation, run);
  };
  return {
    // Apollo waits for this call before it serves: the schema never changes, so it is the only one.
    onSchemaLoadOrUpdate: (callback) => {
      callback({ apiSchema: schema, coreSupergraphSdl: "" });
      return () => {};
    },
    load: async () => ({ executor }),
    stop: async () => {},
  };
}
