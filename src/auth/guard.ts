import { ForbiddenError, NotYoursError, UnauthenticatedError, type AccessError } from "./errors";
import { hasScope, type Principal } from "./principal";
import type { Scope } from "./scopes";

/** Why `principal` may not use what needs `scope`, or undefined when it may. */
export function refusal(principal: Principal, scope: Scope): AccessError | undefined {
  if (hasScope(principal, scope)) return undefined;
  return principal.kind === "token" || principal.kind === "shopper" ? new ForbiddenError(scope) : new UnauthenticatedError(scope);
}

/** The customer a field's data belongs to when the signed-in shopper's own (`viewer`, a purchase without a customerId). */
export const SIGNED_IN = "";

/**
 * Why `principal` may not use a field holding the data of the customer `owner` (an id, SIGNED_IN, or undefined for no
 * shopper's), or undefined when
 * it may: a token with `scope` may use any customer's, a shopper only their own.
 */
export function ownerRefusal(principal: Principal, scope: Scope, owner: string | undefined): AccessError | undefined {
  if (principal.kind !== "shopper") return refusal(principal, scope);
  return owner === SIGNED_IN || owner === principal.customerId ? undefined : new NotYoursError(scope);
}
