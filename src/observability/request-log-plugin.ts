import { performance } from "node:perf_hooks";
import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from "@apollo/server";
import type { Logger } from "pino";
import { ANONYMOUS_OPERATION, UNRESOLVED_OPERATION, type ServerMetrics } from "./metrics";
import { currentRequestContext, newRequestContext } from "./request-context";

/**
 * One log line per GraphQL request (id, operation, duration, database commands, errors, and for each
 * recorded purchase how many purchases its write carried, as `writeSizesOf` reads them from the
 * request's context), and its duration in the metrics.
 */
export function requestLogPlugin<TContext extends object>(
  logger: Logger,
  metrics?: ServerMetrics,
  writeSizesOf: (context: TContext) => readonly number[] = () => [],
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      // executeOperation (tests) runs outside any HTTP request: it gets an id, and no commands are attributed.
      const context = currentRequestContext() ?? newRequestContext();
      return {
        async willSendResponse(requestContext) {
          const purchasesPerWrite = writeSizesOf(requestContext.contextValue);
          const seconds = (performance.now() - started) / 1000;
          const operation = operationLabel(requestContext);
          metrics?.observeRequest(operation, seconds);
          const errorCodes = errorCodesOf(requestContext);
          logger.info(
            {
              requestId: context.requestId,
              operationName: operation,
              operationType: requestContext.operation?.operation,
              durationMs: Math.round(seconds * 1000 * 10) / 10,
              databaseCommands: context.databaseCommands,
              errors: errorCodes.length,
              ...(errorCodes.length > 0 ? { errorCodes: [...new Set(errorCodes)] } : {}),
              // One entry per recordPurchase: 1 when it wrote alone, n when n purchases shared its write, 0 for a replay.
              ...(purchasesPerWrite.length > 0 ? { purchasesPerWrite } : {}),
            },
            "graphql request",
          );
        },
      };
    },
  };
}

function operationLabel({ operation, operationName }: GraphQLRequestContextWillSendResponse<object>): string {
  if (!operation) return UNRESOLVED_OPERATION;
  return operationName ?? ANONYMOUS_OPERATION;
}

function errorCodesOf({ response }: GraphQLRequestContextWillSendResponse<object>): string[] {
  const errors = response.body.kind === "single" ? response.body.singleResult.errors : undefined;
  return (errors ?? []).map((error) => String(error.extensions?.code ?? "UNKNOWN"));
}
