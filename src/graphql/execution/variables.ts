import { getVariableValues, GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { statusOf, type ErrorCode } from "../../error-codes";

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
