import type { ApolloServerPlugin, GraphQLRequestListener } from "@apollo/server";
import {
  getDirectiveValues,
  getNamedType,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isCompositeType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from "graphql";
import { refusal } from "../auth/guard";
import type { Principal } from "../auth/principal";
import type { Scope } from "../auth/scopes";
import type { Resolvers } from "./__generated__/resolvers-types";
import { memoizeByOperation } from "./operation-memo";
import { fragmentsOf } from "./selection";
import { statusOf } from "../error-codes";
import type { CoercedVariables } from "./variables";

type FieldScopes = { readonly [Type in keyof Resolvers]?: { readonly [Field in keyof NonNullable<Resolvers[Type]>]?: Scope } };

/** The scope each protected field needs; every field not listed is public. SECURITY.md "Who may do what" explains them. */
export const FIELD_SCOPES: FieldScopes = {
  Mutation: { addBook: "catalog:write", recordPurchase: "catalog:write" },
  Subscription: { newBuyers: "purchases:read" },
  Book: { customersPurchased: "purchases:read", purchasedBy: "purchases:read", alsoBought: "purchases:read" },
  Customer: { booksPurchased: "purchases:read" },
};

/**
 * Refuses the whole operation, before any resolver runs, when it selects a field the caller may not
 * use: a mutation refused for one of its fields then writes nothing at all, where refusing field by
 * field would run the mutation and refuse only what it returns. The scopes an operation needs are
 * found once per query text, operation and variable values; only the caller is checked per request.
 */
export function accessPlugin<TContext extends { principal: Principal }>(): ApolloServerPlugin<TContext> {
  const scopesOf = memoizeByOperation(({ schema, document, request }, operation) =>
    operationScopes(schema, document, operation, request.variables ?? {}),
  );
  // One listener, already resolved, for every request: nothing in it belongs to a request.
  const listener: GraphQLRequestListener<TContext> = {
    async didResolveOperation(requestContext) {
      const { operation, contextValue } = requestContext;
      if (!operation) return;
      const refused = accessRefusal(contextValue.principal, scopesOf(requestContext, operation));
      if (refused) throw refused;
    },
  };
  const ready = Promise.resolve(listener);
  return { requestDidStart: () => ready };
}

/** The scopes `operation` of `document` needs with these variables, each with the first field that needs it. */
export function operationScopes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: CoercedVariables,
): [Scope, FieldNode][] {
  return [...scopesNeeded(schema, operation, Object.fromEntries(fragmentsOf(document)), variables)];
}

/** Why `principal` may not run an operation needing these scopes, as the GraphQL error to answer, or undefined when it may. */
export function accessRefusal(principal: Principal, scopes: readonly [Scope, FieldNode][]): GraphQLError | undefined {
  for (const [scope, field] of scopes) {
    const refused = refusal(principal, scope);
    if (refused) {
      return new GraphQLError(refused.message, {
        nodes: [field],
        originalError: refused,
        extensions: { code: refused.code, http: { status: statusOf(refused.code) } },
      });
    }
  }
  return undefined;
}

/**
 * The scopes of every field `operation` would resolve, each with the first field that needs it:
 * through fragments, on every type an abstract type may be, and leaving out what `@skip` or
 * `@include` leave out with these variables, as coerced (coerceVariables).
 */
export function scopesNeeded(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: CoercedVariables,
): Map<Scope, FieldNode> {
  const rootType = schema.getRootType(operation.operation);
  const needed = new Map<Scope, FieldNode>();
  if (rootType) collectScopes({ schema, fragments, variables, needed, visited: new Set() }, rootType, operation.selectionSet);
  return needed;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  variables: Record<string, unknown>;
  needed: Map<Scope, FieldNode>;
  /** Fragments already walked; validation has refused cycles, this keeps a fragment spread twice from being walked twice. */
  visited: Set<string>;
}

function collectScopes(walk: Walk, type: GraphQLCompositeType, selectionSet: SelectionSetNode): void {
  for (const selection of selectionSet.selections) {
    if (!isIncluded(selection, walk.variables)) continue;
    if (selection.kind === Kind.FIELD) {
      collectFieldScopes(walk, type, selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectScopes(walk, conditionType(walk.schema, selection.typeCondition?.name.value) ?? type, selection.selectionSet);
    } else if (!walk.visited.has(selection.name.value)) {
      walk.visited.add(selection.name.value);
      const fragment = walk.fragments[selection.name.value];
      const fragmentType = conditionType(walk.schema, fragment?.typeCondition.name.value);
      if (fragment && fragmentType) collectScopes(walk, fragmentType, fragment.selectionSet);
    }
  }
}

function collectFieldScopes(walk: Walk, type: GraphQLCompositeType, node: FieldNode): void {
  const fieldName = node.name.value;
  const concreteTypes = isAbstractType(type) ? walk.schema.getPossibleTypes(type) : [type];
  for (const concrete of concreteTypes) {
    const scope = (FIELD_SCOPES[concrete.name as keyof Resolvers] as Readonly<Record<string, Scope>> | undefined)?.[fieldName];
    if (scope && !walk.needed.has(scope)) walk.needed.set(scope, node);
  }
  const field = "getFields" in type ? type.getFields()[fieldName] : undefined;
  const fieldType = field && getNamedType(field.type);
  if (node.selectionSet && fieldType && isCompositeType(fieldType)) collectScopes(walk, fieldType, node.selectionSet);
}

function conditionType(schema: GraphQLSchema, name: string | undefined): GraphQLCompositeType | undefined {
  const type = name === undefined ? undefined : schema.getType(name);
  return type && isCompositeType(type) ? type : undefined;
}

function isIncluded(selection: SelectionNode, variables: Record<string, unknown>): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.["if"] === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.["if"] !== false;
  } catch {
    // A null condition (inputCheckPlugin refuses it): the field's scope is needed, as it would be if included.
    return true;
  }
}
