import {
  getArgumentValues,
  GraphQLError,
  isUnionType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  BREAK,
  type ASTNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLDirective,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type ValidationRule,
} from "graphql";
import { statusOf, type ErrorCode } from "../../error-codes";
import { fragmentsOf } from "../schema/selection";
import type { CoercedVariables } from "./variables";

/** Where each kind of operation is served: queries and mutations over HTTP, subscriptions over the WebSocket at the same URL. */
export type Transport = "http" | "websocket";

const REFUSED: Readonly<Record<Transport, { refuses: (operation: OperationTypeNode) => boolean; message: string }>> = {
  http: {
    refuses: (operation) => operation === "subscription",
    message: "A subscription is served over a WebSocket at this same URL (the graphql-transport-ws protocol), not over HTTP.",
  },
  websocket: {
    refuses: (operation) => operation !== "subscription",
    message: "This WebSocket serves subscriptions only: send queries and mutations over HTTP to the same URL.",
  },
};

/**
 * Refuses, in validation (GRAPHQL_VALIDATION_FAILED, before anything runs), an operation the transport does
 * not serve: graphql-js would run a subscription sent over HTTP as a one-off query of its event stream, and a
 * query sent over the WebSocket would skip what HTTP gives every query (the response cache, the time limit).
 */
export function operationTransportRule(transport: Transport): ValidationRule {
  const { refuses, message } = REFUSED[transport];
  return (context) => ({
    OperationDefinition(node) {
      if (refuses(node.operation)) context.reportError(new GraphQLError(message, { nodes: node }));
    },
  });
}

const CODE: ErrorCode = "BAD_USER_INPUT";

/** A refusal of input execution would otherwise trip over, before any resolver runs: a 400 with BAD_USER_INPUT. */
class MalformedInputError extends GraphQLError {
  constructor(message: string, node: ASTNode, argumentName?: string) {
    super(message, {
      nodes: node,
      extensions: { code: CODE, ...(argumentName ? { argumentName } : {}), http: { status: statusOf(CODE) } },
    });
  }
}

/** The keys federation.graphql declares for every entity: a representation names its entity by one of them, as a string. */
const ENTITY_KEYS = ["id", "databaseId"] as const;

/**
 * The first input of `operation` (and the fragments it may spread) that execution would trip over with these coerced
 * variables, which the pipeline (pipeline.ts) refuses before any resolver runs: what graphql-js and @apollo/subgraph
 * would otherwise pass on or fail as internal errors, a null reaching a non-null argument of a field or directive (a
 * nullable variable with a default, sent as null, is null, as the spec says: `book(id: $i)` with `$i: ID = "2"`, or
 * `@include(if: $x)`), and `_entities` representations that are not an object naming an entity type and one of its
 * keys as a string.
 */
export function inputProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: CoercedVariables,
): MalformedInputError | undefined {
  let problem: MalformedInputError | undefined;
  for (const definition of [operation, ...fragmentsOf(document).values()]) {
    // A fresh TypeInfo for each definition: a fragment's fields are typed from its own type condition.
    const typeInfo = new TypeInfo(schema);
    visit(
      definition,
      visitWithTypeInfo(typeInfo, {
        Field(node) {
          problem = argumentsProblem(typeInfo.getFieldDef(), node, variables);
          if (!problem && node.name.value === "_entities") problem = representationsProblem(schema, node, variables);
          return problem ? BREAK : undefined;
        },
        Directive(node) {
          problem = argumentsProblem(typeInfo.getDirective(), node, variables);
          return problem ? BREAK : undefined;
        },
      }),
    );
    if (problem) return problem;
  }
  return undefined;
}

/**
 * A null in a non-null argument (`book(id:)`, `@skip(if:)`) fails graphql-js's and graphql-jit's execution with no
 * code, answered as an internal error: refused here as the client's, with the same words.
 */
function argumentsProblem(
  definition: GraphQLField<unknown, unknown> | GraphQLDirective | null | undefined,
  node: FieldNode | DirectiveNode,
  variables: CoercedVariables,
): MalformedInputError | undefined {
  if (!definition) return undefined;
  try {
    getArgumentValues(definition, node, variables);
    return undefined;
  } catch (error) {
    return new MalformedInputError((error as Error).message, node);
  }
}

function representationsProblem(
  schema: GraphQLSchema,
  node: FieldNode,
  variables: Record<string, unknown>,
): MalformedInputError | undefined {
  const field = schema.getQueryType()?.getFields()["_entities"];
  const entity = schema.getType("_Entity");
  if (!field || !isUnionType(entity)) return undefined;
  const entityTypes = entity.getTypes().map((type) => type.name);
  const { representations } = getArgumentValues(field, node, variables) as { representations: unknown[] };
  const index = representations.findIndex((representation) => !isEntityKey(representation, entityTypes));
  if (index === -1) return undefined;
  return new MalformedInputError(
    `representations[${index}] must be an object with a __typename of ${entityTypes.join(" or ")} and its ${ENTITY_KEYS.join(" or ")} as a string.`,
    node,
    "representations",
  );
}

function isEntityKey(representation: unknown, entityTypes: readonly string[]): boolean {
  if (typeof representation !== "object" || representation === null || Array.isArray(representation)) return false;
  const fields = representation as Record<string, unknown>;
  if (typeof fields["__typename"] !== "string" || !entityTypes.includes(fields["__typename"])) return false;
  const keys = ENTITY_KEYS.filter((key) => fields[key] !== undefined);
  return keys.length > 0 && keys.every((key) => typeof fields[key] === "string");
}
