import { ForbiddenError, UnauthenticatedError, type AccessError } from "./errors";
import { hasScope, type Principal } from "./principal";
import type { Scope } from "./scopes";

/** Why `principal` may not use what needs `scope`, or undefined when it may. */
export function refusal(principal: Principal, scope: Scope): AccessError | undefined {
  if (hasScope(principal, scope)) return undefined;
  return principal.kind === "token" ? new ForbiddenError(scope) : new UnauthenticatedError(scope);
}
