import { createHash } from "node:crypto";
import type { GraphQLRequestContextDidResolveOperation } from "@apollo/server";
import type { OperationDefinitionNode } from "graphql";
import { LRUCache } from "lru-cache";

/** Characters of keys one memo holds at most: a storefront's few operations with their usual variables take a few KiB. */
const MAX_KEY_CHARACTERS = 1_000_000;
/**
 * A key longer than this is held as its SHA-256 digest: variables of hundreds of representations or ids, which a
 * client sending them again and again (an attacker among them) would otherwise have coerced, weighed and refused
 * anew each time, at more cost than hashing them.
 */
const MAX_KEY_LENGTH = 2_000;
/** Entries at most: an analysis may hold nodes of its document, which stays in memory while the entry does. */
const MAX_ENTRIES = 1_000;

/** What a plugin's `didResolveOperation` knows; the operation comes apart, once the plugin has checked that one was found. */
export type OperationRequest = Pick<GraphQLRequestContextDidResolveOperation<object>, "schema" | "document" | "queryHash" | "request">;
type Analysis<T> = (request: OperationRequest, operation: OperationDefinitionNode) => T;

/**
 * Remembers what `analyse` found for an operation, so that a request repeating a query text, its
 * operation and the values of the variables that operation declares is not analysed again: the
 * analyses memoized here (cost, scopes needed) depend on nothing else, the schema being fixed for a
 * server's life. Variables the operation does not declare are left out of the key, as every analysis
 * ignores them; an absent variable and a null one are told apart, as GraphQL does. Bounded in memory.
 */
export function memoizeByOperation<T>(analyse: Analysis<T>): Analysis<T> {
  const memo = new LRUCache<string, { value: T }>({
    max: MAX_ENTRIES,
    maxSize: MAX_KEY_CHARACTERS,
    sizeCalculation: (_entry, key) => key.length,
  });
  return (request, operation) => {
    const key = operationKey(request.queryHash, operation, request.request.variables ?? {});
    const known = memo.get(key);
    if (known) return known.value;
    const value = analyse(request, operation);
    memo.set(key, { value });
    return value;
  };
}

function operationKey(queryHash: string, operation: OperationDefinitionNode, variables: Record<string, unknown>): string {
  const declared = (operation.variableDefinitions ?? []).map(({ variable }) => {
    const value = variables[variable.name.value];
    return value === undefined ? 0 : [value];
  });
  const key = `${queryHash}:${operation.name?.value ?? ""}:${JSON.stringify(declared)}`;
  return key.length <= MAX_KEY_LENGTH ? key : `sha256:${createHash("sha256").update(key).digest("base64")}`;
}
