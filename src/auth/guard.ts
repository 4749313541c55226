import { ForbiddenError, UnauthenticatedError } from "./errors";
import { hasScope, type Principal } from "./principal";
import type { Scope } from "./scopes";

/**
 * Throws unless the caller holds `scope`. Resolvers call it first, before reading or writing
 * anything, so a refused caller learns nothing and changes nothing.
 */
export function requireScope(caller: { readonly principal: Principal }, scope: Scope): void {
  const { principal } = caller;
  if (hasScope(principal, scope)) return;
  throw principal.kind === "token" ? new ForbiddenError(scope) : new UnauthenticatedError(scope);
}
