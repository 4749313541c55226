import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from "@apollo/server";
import { ApolloServerPluginCacheControl } from "@apollo/server/plugin/cacheControl";
import {
  GraphQLSkipDirective,
  GraphQLIncludeDirective,
  getDirectiveValues,
  getNamedType,
  getVariableValues,
  isAbstractType,
  isCompositeType,
  isObjectType,
  Kind,
  type ConstDirectiveNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from "graphql";
import { memoizeByOperation } from "../execution/operation-memo";
import { fragmentsOf } from "../schema/selection";

/** A cache hint as `@cacheControl` gives one: how long, and for whom. */
export interface CacheHint {
  maxAge?: number;
  scope?: "PUBLIC" | "PRIVATE";
}

/**
 * The cache policy of an operation, worked out from the schema's `@cacheControl` hints and the operation alone, with
 * the rules Apollo's cache control plugin applies to each field as it resolves: a field takes the hint of the type it
 * returns, then its own; one that returns an object, or sits at the root, and still has no max age takes
 * `defaultMaxAge`; the operation takes the shortest max age and, if any field is private, the private scope.
 * Apollo's plugin learns the hints from resolver hooks that only graphql-js execution calls; this needs none, so
 * compiled execution keeps them. It counts every field the operation may resolve, not only those it did: a private
 * field beneath a null or an empty list, or in a fragment on a type the answer did not hold, makes the answer
 * private where Apollo's would have been public (never the reverse). `@skip` and `@include` are applied.
 */
export function operationCachePolicy(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  defaultMaxAge: number,
): CacheHint {
  const policy: CacheHint = {};
  const root = schema.getRootType(operation.operation);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  // Variables that cannot be coerced fail the operation, whose answer with errors is never cached.
  if (!root || coerced.errors) return policy;
  const included = (selection: SelectionNode) =>
    getDirectiveValues(GraphQLSkipDirective, selection, coerced.coerced)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, selection, coerced.coerced)?.if !== false;
  const visit = (types: readonly GraphQLObjectType[], selectionSet: SelectionSetNode, atRoot: boolean): void => {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        // __typename, __schema and __type: Apollo's plugin sees none of them, nor the introspection types beneath.
        if (selection.name.value.startsWith("__")) continue;
        for (const type of types) {
          const field = type.getFields()[selection.name.value];
          if (!field) continue;
          restrict(policy, fieldHint(field, atRoot, defaultMaxAge));
          const returned = getNamedType(field.type);
          if (selection.selectionSet && isCompositeType(returned)) visit(objectTypes(schema, returned), selection.selectionSet, false);
        }
        continue;
      }
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
      if (!fragment) continue;
      const condition = fragment.typeCondition && schema.getType(fragment.typeCondition.name.value);
      const matching = condition && isCompositeType(condition) ? types.filter((type) => appliesTo(schema, condition, type)) : types;
      visit(matching, fragment.selectionSet, atRoot);
    }
  };
  visit([root], operation.selectionSet, true);
  return policy;
}

/**
 * Sets each executed operation's cache policy from `operationCachePolicy`, memoized per query text, operation and
 * variables; Apollo's cache control plugin then writes `Cache-Control` from it, and the response cache keeps or
 * skips the answer by it, as before. Under graphql-js execution Apollo's plugin adds what the fields' hooks see,
 * which is never more than this: the policy is the same either way.
 */
export function staticCachePolicyPlugin<TContext extends BaseContext>(defaultMaxAge: number): ApolloServerPlugin<TContext> {
  const policyOf = memoizeByOperation((request, operation) =>
    operationCachePolicy(request.schema, operation, fragmentsOf(request.document), request.request.variables ?? {}, defaultMaxAge),
  );
  // The same listener for every request: it keeps nothing of its own between the hooks.
  const listener: GraphQLRequestListener<TContext> = {
    executionDidStart: async (requestContext) => {
      if (requestContext.operation) requestContext.overallCachePolicy.restrict(policyOf(requestContext, requestContext.operation));
    },
  };
  return {
    serverWillStart: async ({ schema }) => refuseInheritedMaxAge(schema),
    requestDidStart: async () => listener,
  };
}

/**
 * Apollo's cache-control plugin for the one thing this API needs of it: the `Cache-Control` header, from the policy
 * `staticCachePolicyPlugin` gives the operation. Its `executionDidStart` is left out: the field hooks it returns
 * learn from the resolvers what the static policy already holds (and no resolver reads `info.cacheControl`), and
 * while any plugin has such a hook Apollo gives each request's context a function that holds the whole request
 * pipeline. Under the gateway interface (compiled execution) Apollo also hands the executor a request object with
 * accessors made per request, which V8's scavenges keep alive until a full collection: through that function every
 * request's objects outlived the young generation (docs/benchmarks/analysis.md, "What survived the scavenges").
 */
export function cacheControlHeaderPlugin<TContext extends BaseContext>(defaultMaxAge: number): ApolloServerPlugin<TContext> {
  // Kept whole for its internal id, by which Apollo knows not to add a cache-control plugin of its own.
  const apollo = ApolloServerPluginCacheControl({ defaultMaxAge }) as ApolloServerPlugin<TContext>;
  return {
    ...apollo,
    requestDidStart: async (requestContext) => {
      const listener = await apollo.requestDidStart?.(requestContext);
      return listener?.willSendResponse ? { willSendResponse: listener.willSendResponse } : undefined;
    },
  };
}

function fieldHint(field: GraphQLField<unknown, unknown>, atRoot: boolean, defaultMaxAge: number): CacheHint {
  const returned = getNamedType(field.type);
  const hint: CacheHint = { ...(isCompositeType(returned) ? definedOnly(hintOf(returned)) : {}), ...definedOnly(hintOf(field)) };
  if (hint.maxAge === undefined && (isCompositeType(returned) || atRoot)) hint.maxAge = defaultMaxAge;
  return hint;
}

function restrict(policy: CacheHint, hint: CacheHint): void {
  if (hint.maxAge !== undefined && (policy.maxAge === undefined || hint.maxAge < policy.maxAge)) policy.maxAge = hint.maxAge;
  if (hint.scope !== undefined && policy.scope !== "PRIVATE") policy.scope = hint.scope;
}

interface Annotated {
  astNode?: { directives?: readonly ConstDirectiveNode[] } | null;
}

const hints = new WeakMap<Annotated, CacheHint & { inheritMaxAge?: boolean }>();

/** The `@cacheControl` on a type's or field's definition, read once. */
function hintOf(definition: Annotated): CacheHint & { inheritMaxAge?: boolean } {
  let hint = hints.get(definition);
  if (hint === undefined) {
    const directive = definition.astNode?.directives?.find((node) => node.name.value === "cacheControl");
    hint = {};
    for (const argument of directive?.arguments ?? []) {
      const { value } = argument;
      if (argument.name.value === "maxAge" && value.kind === Kind.INT) hint.maxAge = Number(value.value);
      if (argument.name.value === "scope" && value.kind === Kind.ENUM && (value.value === "PUBLIC" || value.value === "PRIVATE"))
        hint.scope = value.value;
      if (argument.name.value === "inheritMaxAge" && value.kind === Kind.BOOLEAN) hint.inheritMaxAge = value.value;
    }
    hints.set(definition, hint);
  }
  return hint;
}

function definedOnly(hint: CacheHint): CacheHint {
  return { ...(hint.maxAge === undefined ? {} : { maxAge: hint.maxAge }), ...(hint.scope === undefined ? {} : { scope: hint.scope }) };
}

/** `inheritMaxAge` depends on where a field is reached, which these rules leave out: a schema that uses it is refused at start. */
function refuseInheritedMaxAge(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    const fields = isObjectType(type) ? Object.values(type.getFields()) : [];
    const uses = [type, ...fields].filter((definition) => hintOf(definition).inheritMaxAge);
    if (uses.length > 0)
      throw new Error(
        `@cacheControl(inheritMaxAge: true) on ${type.name} is not supported by the static cache policy (src/graphql/caching/cache-policy.ts): give a maxAge instead`,
      );
  }
}

function objectTypes(schema: GraphQLSchema, type: GraphQLCompositeType): readonly GraphQLObjectType[] {
  return isAbstractType(type) ? schema.getPossibleTypes(type) : [type];
}

function appliesTo(schema: GraphQLSchema, condition: GraphQLCompositeType, type: GraphQLObjectType): boolean {
  return condition === type || (isAbstractType(condition) && schema.isSubType(condition, type));
}
