import {
  getArgumentValues,
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
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from "graphql";
import { ownerRefusal, refusal, SIGNED_IN } from "../../auth/guard";
import type { Principal } from "../../auth/principal";
import type { Scope } from "../../auth/scopes";
import type { Resolvers } from "../__generated__/resolvers-types";
import { fragmentsOf } from "../schema/selection";
import { statusOf } from "../../error-codes";
import { customerIdFromEither } from "../schema/global-ids";
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
 * How a field that returns a customer's data is guarded (SECURITY.md "Shoppers"):
 * - `owner`: the customer's own data, for the shopper whose customer it is, or a token with the field's scope in
 *   FIELD_SCOPES (the back office). Whose it is: the `Customer` reached through `viewer` (the shopper's own) or
 *   `customer(id:)` (that id); reached any other way, no shopper's. `recordPurchase`'s is its `input.customerId`
 *   (the shopper's own when left out).
 * - `signed-in`: the signed-in shopper's own customer, null for any other caller.
 * - `ids-given`: answers only with the ids the caller sent (a Customer is known here only by id).
 * - `within`: reached only through fields FIELD_SCOPES protects (test/unit/customer-fields.test.ts checks).
 */
export type CustomerDataGuard = "owner" | "signed-in" | "ids-given" | "within";

type CustomerFields = {
  readonly [Type in keyof Resolvers]?: { readonly [Field in keyof NonNullable<Resolvers[Type]>]?: CustomerDataGuard };
};

/**
 * Every field that returns a customer's data (a Customer, a list of buyers, a customer's id), beside FIELD_SCOPES:
 * test/unit/customer-fields.test.ts fails when the schema has such a field in neither table.
 */
export const CUSTOMER_FIELDS: CustomerFields = {
  Query: { viewer: "signed-in", customer: "ids-given", node: "ids-given", nodes: "ids-given" },
  Mutation: { recordPurchase: "owner" },
  Customer: { id: "ids-given", databaseId: "ids-given", globalId: "ids-given", booksPurchased: "owner" },
  CustomerConnection: { edges: "within" },
  CustomerEdge: { node: "within" },
  NewBuyer: { edge: "within" },
};

/** One scope an operation needs, the first field that needs it, and, for a customer's own data, whose it is (undefined: no shopper's). */
export type Requirement = readonly [Scope, FieldNode] | readonly [Scope, FieldNode, { readonly customerId: string | undefined }];

/**
 * The scopes `operation` of `document` needs with these variables, each with the first field that needs it. The
 * pipeline (pipeline.ts) refuses the whole operation, before any resolver runs, when it selects a field the caller
 * may not use: a mutation refused for one of its fields then writes nothing at all, where refusing field by field
 * would run the mutation and refuse only what it returns. The scopes are found once per query text, operation and
 * variable values; only the caller is checked per request.
 */
export function operationScopes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: CoercedVariables,
): Requirement[] {
  const { needed, owned } = walkOperation(schema, operation, Object.fromEntries(fragmentsOf(document)), variables);
  return [...needed, ...owned];
}

/** Why `principal` may not run an operation needing these scopes, as the GraphQL error to answer, or undefined when it may. */
export function accessRefusal(principal: Principal, scopes: readonly Requirement[]): GraphQLError | undefined {
  for (const [scope, field, owned] of scopes) {
    const refused = owned ? ownerRefusal(principal, scope, owned.customerId) : refusal(principal, scope);
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
  return walkOperation(schema, operation, fragments, variables).needed;
}

/** scopesNeeded's walk, which also finds the fields holding a customer's own data (CUSTOMER_FIELDS' `owner`), each with whose. */
function walkOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: CoercedVariables,
): Pick<Walk, "needed" | "owned"> {
  const needed = new Map<Scope, FieldNode>();
  const owned: Walk["owned"] = [];
  const rootType = schema.getRootType(operation.operation);
  const walk = { schema, fragments, variables, needed, owned, visited: new Set<string>(), owner: undefined };
  if (rootType) collectScopes(walk, rootType, operation.selectionSet);
  return { needed, owned };
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  variables: Record<string, unknown>;
  needed: Map<Scope, FieldNode>;
  /** Every field holding a customer's own data, with its scope and whose data it is. */
  owned: [Scope, FieldNode, { customerId: string | undefined }][];
  /**
   * Fragments already walked, with the customer they were walked for; validation has refused cycles, this keeps a
   * fragment spread twice from being walked twice, and walks it again under another customer's object.
   */
  visited: Set<string>;
  /** Whose data the Customer objects of the selection set being walked are (undefined: no shopper's). */
  owner: string | undefined;
}

function collectScopes(walk: Walk, type: GraphQLCompositeType, selectionSet: SelectionSetNode): void {
  for (const selection of selectionSet.selections) {
    if (!isIncluded(selection, walk.variables)) continue;
    if (selection.kind === Kind.FIELD) {
      collectFieldScopes(walk, type, selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectScopes(walk, conditionType(walk.schema, selection.typeCondition?.name.value) ?? type, selection.selectionSet);
    } else if (!walk.visited.has(`${walk.owner}\u0000${selection.name.value}`)) {
      walk.visited.add(`${walk.owner}\u0000${selection.name.value}`);
      const fragment = walk.fragments[selection.name.value];
      const fragmentType = conditionType(walk.schema, fragment?.typeCondition.name.value);
      if (fragment && fragmentType) collectScopes(walk, fragmentType, fragment.selectionSet);
    }
  }
}

function collectFieldScopes(walk: Walk, type: GraphQLCompositeType, node: FieldNode): void {
  const fieldName = node.name.value;
  const concreteTypes = isAbstractType(type) ? walk.schema.getPossibleTypes(type) : [type];
  const field = "getFields" in type ? type.getFields()[fieldName] : undefined;
  for (const concrete of concreteTypes) {
    const scope = tableEntry<Scope>(FIELD_SCOPES, concrete.name, fieldName);
    if (!scope) continue;
    if (tableEntry<CustomerDataGuard>(CUSTOMER_FIELDS, concrete.name, fieldName) === "owner")
      walk.owned.push([scope, node, { customerId: ownerOfField(walk, concrete.name, fieldName, field && argumentsOf(field, node, walk)) }]);
    else if (!walk.needed.has(scope)) walk.needed.set(scope, node);
  }
  const fieldType = field && getNamedType(field.type);
  if (node.selectionSet && fieldType && isCompositeType(fieldType)) {
    const owner = ownerOfObjects(type.name, fieldName, field && argumentsOf(field, node, walk));
    collectScopes({ ...walk, owner }, fieldType, node.selectionSet);
  }
}

function tableEntry<T>(table: { readonly [type: string]: unknown }, type: string, field: string): T | undefined {
  return (table[type] as Readonly<Record<string, T>> | undefined)?.[field];
}

/** The field's arguments with these variables, or undefined when they do not coerce (execution refuses them, BAD_USER_INPUT). */
function argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode, walk: Walk): Record<string, unknown> | undefined {
  try {
    return getArgumentValues(field, node, walk.variables);
  } catch {
    return undefined;
  }
}

/** Whose data an `owner` field holds: recordPurchase's customer (the shopper's own when left out), else its Customer's. */
function ownerOfField(walk: Walk, type: string, field: string, args: Record<string, unknown> | undefined): string | undefined {
  if (type !== "Mutation" || field !== "recordPurchase") return walk.owner;
  const customerId = (args?.["input"] as { customerId?: unknown } | undefined)?.customerId;
  return customerId == null ? SIGNED_IN : customerIdOrUndefined(customerId);
}

/** Whose the Customer objects a field returns are: `viewer`'s the shopper's own, `customer(id:)`'s that id's, no shopper's otherwise. */
function ownerOfObjects(type: string, field: string, args: Record<string, unknown> | undefined): string | undefined {
  if (type !== "Query") return undefined;
  if (field === "viewer") return SIGNED_IN;
  return field === "customer" ? customerIdOrUndefined(args?.["id"]) : undefined;
}

function customerIdOrUndefined(value: unknown): string | undefined {
  try {
    return typeof value === "string" ? customerIdFromEither(value) : undefined;
  } catch {
    return undefined;
  }
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
    // A null condition (the input checks refuse it): the field's scope is needed, as it would be if included.
    return true;
  }
}
