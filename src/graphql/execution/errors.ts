import { unwrapResolverError } from "@apollo/server/errors";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import type { Logger } from "pino";
import { isDatabaseUnavailable, MissingIndexError } from "../../db/errors";
import type { ErrorCode } from "../../error-codes";
import { ClientError } from "../../errors";
import { RequestLimitError } from "../limits/operation";

/**
 * Apollo Server refuses these automatic persisted queries with a 400 but no code, which would make them
 * INTERNAL_SERVER_ERROR; they get the codes Apollo gives the same refusals elsewhere (Apollo Router's hash
 * mismatch, Apollo Server's own for a persisted query it cannot serve).
 */
const PERSISTED_QUERY_REFUSALS: Readonly<Record<string, ErrorCode>> = {
  "Unsupported persisted query version": "PERSISTED_QUERY_NOT_SUPPORTED",
  "provided sha does not match query": "PERSISTED_QUERY_HASH_MISMATCH",
};

const INTERNAL: ErrorCode = "INTERNAL_SERVER_ERROR";
const UNAVAILABLE: ErrorCode = "DATABASE_UNAVAILABLE";

const DATABASE_UNAVAILABLE: Pick<GraphQLFormattedError, "message" | "extensions"> = {
  message: "The database is unavailable right now; try again shortly.",
  extensions: { code: UNAVAILABLE },
};

/**
 * Gives every error a stable `extensions.code`: the domain's own codes for what the client can fix,
 * UNAUTHENTICATED and FORBIDDEN for fields refused to the caller,
 * the request limits' codes, DATABASE_UNAVAILABLE while MongoDB cannot be reached or is overloaded,
 * DATABASE_NOT_READY for a write refused while an index it relies on is missing, Apollo's for what
 * GraphQL rejects, and INTERNAL_SERVER_ERROR for the rest, logged in full here and, in production,
 * shown to the client without its message; in production, every message has its suggestions masked
 * (`maskSuggestions`). The one formatter of both transports: Apollo's `formatError` over HTTP, and through
 * `createGraphQLErrorFormatter` over the WebSocket.
 */
export function createErrorFormatter(logger: Logger, production: boolean) {
  const format = formatterOf(logger, production);
  if (!production) return format;
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const shown = format(formatted, error);
    return { ...shown, message: maskSuggestions(shown.message) };
  };
}

/**
 * The production masking of graphql-js's "Did you mean ...?" (in validation and variable coercion errors), which
 * would otherwise reveal the schema field by field even with introspection off; graphql-armor's blockFieldSuggestion
 * masks them the same way, but as an Apollo plugin, which the WebSocket's errors never met.
 */
export function maskSuggestions(message: string): string {
  return message.replace(/Did you mean ".+"\?/g, SUGGESTION_HIDDEN).trim();
}

/** What stands in for a masked suggestion: graphql-armor's own words. */
const SUGGESTION_HIDDEN = "[Suggestion hidden]";

/**
 * `createErrorFormatter` for an error that no Apollo request pipeline formats (the WebSocket's): as Apollo hands errors
 * to `formatError`, an error with no code is INTERNAL_SERVER_ERROR (a resolver's own, a non-null field that failed),
 * so that it is logged and, in production, masked rather than sent as it was thrown; `http`, which only an HTTP answer
 * uses, is left out.
 */
export function createGraphQLErrorFormatter(logger: Logger, production: boolean): (error: GraphQLError) => GraphQLFormattedError {
  const formatError = createErrorFormatter(logger, production);
  return (error) => {
    const { http: _http, ...extensions } = error.extensions ?? {};
    return formatError({ ...error.toJSON(), extensions: { code: INTERNAL, ...extensions } }, error);
  };
}

function formatterOf(logger: Logger, production: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ClientError) {
      return { ...formatted, message: original.message, extensions: { code: original.code, ...original.extensions() } };
    }
    // Apollo reports every validation rule's refusal as GRAPHQL_VALIDATION_FAILED; a limit keeps its own code.
    const limit = error instanceof GraphQLError && error.originalError instanceof RequestLimitError ? error.originalError : original;
    if (limit instanceof RequestLimitError) return { ...formatted, extensions: { code: limit.code } };
    if (original instanceof MissingIndexError) {
      logger.warn({ err: original, path: formatted.path }, "write refused while an index is missing");
      return { message: original.message, path: formatted.path, locations: formatted.locations, extensions: { code: original.code } };
    }
    if (isDatabaseUnavailable(thrownValue(original))) {
      logger.warn({ err: original, path: formatted.path }, "database unavailable while serving a request");
      return { ...DATABASE_UNAVAILABLE, path: formatted.path, locations: formatted.locations };
    }
    if (formatted.extensions?.code !== INTERNAL) return formatted;
    const persistedQueryRefusal = formatted.path === undefined ? PERSISTED_QUERY_REFUSALS[formatted.message] : undefined;
    if (persistedQueryRefusal) return { ...formatted, extensions: { code: persistedQueryRefusal } };
    logger.error({ err: original, path: formatted.path }, "unexpected error while serving a request");
    if (!production) return formatted;
    return {
      message: "Internal server error.",
      path: formatted.path,
      locations: formatted.locations,
      extensions: { code: INTERNAL },
    };
  };
}

// graphql-js wraps a thrown value that is not an Error of its realm (a Node socket error under jest's vm) in NonErrorThrown.
function thrownValue(error: unknown): unknown {
  return error instanceof Error && "thrownValue" in error ? error.thrownValue : error;
}
