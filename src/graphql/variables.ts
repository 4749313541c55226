import type { ApolloServerPlugin, GraphQLRequestListener } from "@apollo/server";
import { getVariableValues, GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { statusOf, type ErrorCode } from "../error-codes";

/** The variables of a request, as JSON carried them. */
type SentVariables = Readonly<Record<string, unknown>>;

/** An operation's variables as the spec coerces them: defaults filled in, lists wrapped, input objects checked. */
export type CoercedVariables = Record<string, unknown>;

const CODE: ErrorCode = "BAD_USER_INPUT";

/**
 * Coerces `variables` for `operation` once, as the GraphQL spec does (graphql-js' `getVariableValues`), or refuses
 * them with BAD_USER_INPUT. Every check (input, cost, scopes) and every engine then reads the coerced values, never
 * the sent ones: an engine with a coercion of its own (graphql-jit accepted `[]` for an input object) could otherwise
 * run what no check saw, and a variable left to its default would reach the engine absent.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: SentVariables | null | undefined,
): { variables: CoercedVariables } | { refusal: GraphQLError } {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (!coerced.errors) return { variables: coerced.coerced };
  // graphql-js names each variable that does not coerce; the first says what to fix, as one refusal.
  const [first] = coerced.errors;
  return {
    refusal: new GraphQLError(first!.message, {
      nodes: first!.nodes,
      extensions: { code: CODE, http: { status: statusOf(CODE) } },
    }),
  };
}

/**
 * Replaces each HTTP request's variables with their coerced values before any check reads them, or refuses the
 * request. First among the plugins that check an operation: Apollo calls every plugin's `didResolveOperation` in
 * the order of its plugin list, one after the other within the same turn (its pipeline maps them into a
 * `Promise.all`), so this one, which does its work without awaiting, has replaced them before the next is called;
 * a refusal here answers the request, whatever the later checks make of what they are then handed.
 */
export function coercedVariablesPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  const listener: GraphQLRequestListener<TContext> = {
    didResolveOperation({ schema, operation, request }) {
      if (!operation) return Promise.resolve();
      const coerced = coerceVariables(schema, operation, request.variables);
      if ("refusal" in coerced) return Promise.reject(coerced.refusal);
      request.variables = coerced.variables;
      return Promise.resolve();
    },
  };
  const ready = Promise.resolve(listener);
  return { requestDidStart: () => ready };
}
