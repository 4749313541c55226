import { unwrapResolverError } from "@apollo/server/errors";
import type { GraphQLFormattedError } from "graphql";
import type { Logger } from "pino";
import { AccessError } from "../auth/errors";
import { InvalidInputError, SalesError } from "../sales/errors";

/**
 * Gives every error a stable `extensions.code`: the domain's own codes for what the client can fix,
 * UNAUTHENTICATED and FORBIDDEN for fields refused to the caller,
 * Apollo's for what GraphQL rejects, and INTERNAL_SERVER_ERROR for the rest, logged in full here
 * and, in production, shown to the client without its message.
 */
export function createErrorFormatter(logger: Logger, production: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof SalesError || original instanceof AccessError) {
      const argumentName = original instanceof InvalidInputError ? { argumentName: original.argument } : {};
      return { ...formatted, message: original.message, extensions: { code: original.code, ...argumentName } };
    }
    if (formatted.extensions?.code !== "INTERNAL_SERVER_ERROR") return formatted;
    logger.error({ err: original, path: formatted.path }, "unexpected error while serving a request");
    if (!production) return formatted;
    return { message: "Internal server error.", path: formatted.path, locations: formatted.locations, extensions: { code: "INTERNAL_SERVER_ERROR" } };
  };
}
