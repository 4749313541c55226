import { timingSafeEqual } from "node:crypto";
import type { Scope } from "./scopes";
import { looksLikeJwt, type VerifyShopper } from "./shoppers";
import { BEARER_TOKEN, digestToken, type ConfiguredToken } from "./tokens";

/** Who sent a request, as far as access is concerned. */
export type Principal =
  /** No tokens are configured (development): every scope is granted to everyone. */
  | { readonly kind: "open" }
  /** No Authorization header. */
  | { readonly kind: "anonymous" }
  /** An Authorization header that is malformed or carries no configured token. */
  | { readonly kind: "unrecognized" }
  | {
      readonly kind: "token";
      readonly name: string;
      readonly scopes: ReadonlySet<Scope>;
      /** Whether the token may run only the trusted documents, by hash (its entry's `"trustedDocuments": true`). */
      readonly trustedDocumentsOnly: boolean;
    }
  /** A signed-in shopper: an access token from the OpenID Connect issuer (OIDC_ISSUER), naming the shopper's customer id. */
  | { readonly kind: "shopper"; readonly customerId: string };

export const OPEN_ACCESS: Principal = { kind: "open" };

// RFC 6750: the scheme is case-insensitive, then one or more spaces, then the token.
const BEARER = /^Bearer +(\S+)$/i;

/**
 * Identifies the caller from the request's Authorization header. `tokens` undefined means none are
 * configured, which only development allows (see readConfig).
 */
export function identifyCaller(tokens: readonly ConfiguredToken[] | undefined, authorization: string | undefined): Principal {
  if (tokens === undefined) return OPEN_ACCESS;
  if (authorization === undefined) return ANONYMOUS;
  const presented = BEARER.exec(authorization.trim())?.[1];
  if (presented === undefined || !BEARER_TOKEN.test(presented)) return UNRECOGNIZED;
  const match = findToken(tokens, digestToken(presented));
  return match ? principalOf(match) : UNRECOGNIZED;
}

/**
 * The one way an HTTP request and a WebSocket's connection_init identify their caller: a configured service token
 * first, as identifyCaller does; otherwise a bearer token shaped as a JWT is a shopper's when the issuer signed it
 * for this API, and names no one (a 401 for protected fields) when it did not, even in an open development API.
 */
export async function authenticate(
  tokens: readonly ConfiguredToken[] | undefined,
  verifyShopper: VerifyShopper | undefined,
  authorization: string | undefined,
): Promise<Principal> {
  const caller = identifyCaller(tokens, authorization);
  if (verifyShopper === undefined || authorization === undefined || caller.kind === "token") return caller;
  const presented = BEARER.exec(authorization.trim())?.[1];
  if (presented === undefined || !looksLikeJwt(presented)) return caller;
  const customerId = await verifyShopper(presented);
  return customerId === undefined ? UNRECOGNIZED : { kind: "shopper", customerId };
}

// One principal per configured token, made at its first request: a request's context holds its principal past the
// scavenges (docs/benchmarks/analysis.md), so a principal made per request would be copied each time.
const ANONYMOUS: Principal = { kind: "anonymous" };
const UNRECOGNIZED: Principal = { kind: "unrecognized" };
const principals = new WeakMap<ConfiguredToken, Principal>();

function principalOf(token: ConfiguredToken): Principal {
  let principal = principals.get(token);
  if (principal === undefined) {
    principal = { kind: "token", name: token.name, scopes: token.scopes, trustedDocumentsOnly: token.trustedDocumentsOnly };
    principals.set(token, principal);
  }
  return principal;
}

/**
 * Compares digests, which all have the same length, with timingSafeEqual, and compares every
 * configured token even after a match: the time taken tells nothing about how close a guess came
 * or which entry it matched.
 */
function findToken(tokens: readonly ConfiguredToken[], presented: Buffer): ConfiguredToken | undefined {
  let match: ConfiguredToken | undefined;
  for (const token of tokens) {
    const equal = timingSafeEqual(token.digest, presented);
    match = equal ? token : match;
  }
  return match;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.kind === "open" || (principal.kind === "token" && principal.scopes.has(scope));
}

type Request = { readonly headers: { readonly authorization?: string } };

/** An HTTP request's caller, identified once however many steps of the request ask (the client budget, the GraphQL context). */
export type CallerOf = (request: Request) => Principal;

/**
 * `identify` authenticates a request (a shopper's token is verified asynchronously) as its first step; `callerOf`
 * then answers every later step at once. A request `identify` never saw is identified by its service token alone.
 */
export function callerOfRequests(
  tokens: readonly ConfiguredToken[] | undefined,
  verifyShopper?: VerifyShopper,
): CallerOf & { identify(request: Request): Promise<void> } {
  const callers = new WeakMap<object, Principal>();
  const callerOf = (request: Request) => {
    let caller = callers.get(request);
    if (caller === undefined) {
      caller = identifyCaller(tokens, request.headers.authorization);
      callers.set(request, caller);
    }
    return caller;
  };
  const identify = async (request: Request) => {
    callers.set(request, await authenticate(tokens, verifyShopper, request.headers.authorization));
  };
  return Object.assign(callerOf, { identify });
}
