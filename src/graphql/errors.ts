import { unwrapResolverError } from "@apollo/server/errors";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import {
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import type { Logger } from "pino";
import { ClientError } from "../errors";
import { RequestLimitError } from "./limits/operation";

// Server errors that mean "this server is going away or cannot take this now", as a stopping or stepping-down mongod answers.
const SERVER_GOING_AWAY = new Set([
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** True when `error` says the database could not be reached or went away, rather than refusing the request. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof MongoServerError) return typeof error.code === "number" && SERVER_GOING_AWAY.has(error.code);
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoTopologyClosedError
  );
}

/**
 * Apollo Server refuses these automatic persisted queries with a 400 but no code, which would make them
 * INTERNAL_SERVER_ERROR; they get the codes Apollo gives the same refusals elsewhere (Apollo Router's hash
 * mismatch, Apollo Server's own for a persisted query it cannot serve).
 */
const PERSISTED_QUERY_REFUSALS: Readonly<Record<string, string>> = {
  "Unsupported persisted query version": "PERSISTED_QUERY_NOT_SUPPORTED",
  "provided sha does not match query": "PERSISTED_QUERY_HASH_MISMATCH",
};

const DATABASE_UNAVAILABLE: Pick<GraphQLFormattedError, "message" | "extensions"> = {
  message: "The database is unavailable right now; try again shortly.",
  extensions: { code: "DATABASE_UNAVAILABLE" },
};

/**
 * Gives every error a stable `extensions.code`: the domain's own codes for what the client can fix,
 * UNAUTHENTICATED and FORBIDDEN for fields refused to the caller,
 * the request limits' codes, DATABASE_UNAVAILABLE while MongoDB cannot be reached, Apollo's for what
 * GraphQL rejects, and INTERNAL_SERVER_ERROR for the rest, logged in full here and, in production,
 * shown to the client without its message.
 */
export function createErrorFormatter(logger: Logger, production: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ClientError) {
      return { ...formatted, message: original.message, extensions: { code: original.code, ...original.extensions() } };
    }
    // Apollo reports every validation rule's refusal as GRAPHQL_VALIDATION_FAILED; a limit keeps its own code.
    const limit = error instanceof GraphQLError && error.originalError instanceof RequestLimitError ? error.originalError : original;
    if (limit instanceof RequestLimitError) return { ...formatted, extensions: { code: limit.code } };
    if (isDatabaseUnavailable(original)) {
      logger.warn({ err: original, path: formatted.path }, "database unavailable while serving a request");
      return { ...DATABASE_UNAVAILABLE, path: formatted.path, locations: formatted.locations };
    }
    if (formatted.extensions?.code !== "INTERNAL_SERVER_ERROR") return formatted;
    const persistedQueryRefusal = formatted.path === undefined ? PERSISTED_QUERY_REFUSALS[formatted.message] : undefined;
    if (persistedQueryRefusal) return { ...formatted, extensions: { code: persistedQueryRefusal } };
    logger.error({ err: original, path: formatted.path }, "unexpected error while serving a request");
    if (!production) return formatted;
    return { message: "Internal server error.", path: formatted.path, locations: formatted.locations, extensions: { code: "INTERNAL_SERVER_ERROR" } };
  };
}
