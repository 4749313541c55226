// Types only: jose is an ES module, imported lazily where a shopper's token is first verified (never by a process without shoppers).
import type { JWTVerifyGetKey } from "jose" with { "resolution-mode": "import" };

/** Where shoppers' access tokens come from: the OpenID Connect issuer the API trusts (OIDC_*). */
export interface ShopperIssuer {
  /** The issuer's identifier, as its tokens' `iss` and its discovery document's `issuer` state it. */
  readonly issuer: string;
  /** What the tokens' `aud` must hold: the API's resource identifier at the issuer. */
  readonly audience: string;
  /** The claim that holds the shopper's customer id; `sub` unless the issuer keeps it elsewhere. */
  readonly customerClaim: string;
  /**
   * How long after fetching the issuer's keys a token with an unknown `kid` may not make the API fetch them again
   * (jose's `cooldownDuration`): a rotated key is followed at most this long after the issuer starts signing with it.
   */
  readonly keysCooldownMs?: number;
}

/**
 * Asymmetric algorithms only: a token must be signed with the issuer's private key. `none` and the HMAC algorithms
 * (whose "key" would be public, taken from the JWKS) are refused whatever a token's header says.
 */
export const SHOPPER_ALGORITHMS = ["RS256", "PS256", "ES256", "ES384", "EdDSA"];

/** The customer id a shopper's token names, or undefined when the token is not one the issuer signed for this API, unexpired. */
export type VerifyShopper = (token: string) => Promise<string | undefined>;

const DISCOVERY_RETRY_MS = 5_000;

// A JWS compact serialization: header.payload.signature, each base64url. Anything else is not a shopper's token.
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(token: string): boolean {
  return JWT.test(token);
}

/**
 * Verifies shoppers' tokens against the issuer's keys: its discovery document names the JWKS, read at the first token
 * (so the API starts while the issuer is away) and read again a few seconds after it failed; jose caches the keys and fetches them
 * anew when a token names a key it does not hold.
 */
export function shopperVerifier(settings: ShopperIssuer): VerifyShopper {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keysOf = () => {
    keys ??= discoverKeys(settings).catch((error: unknown) => {
      // Tried again after a pause, not at once: while the issuer is away, every shopper's request would otherwise send one more fetch its way.
      setTimeout(() => (keys = undefined), DISCOVERY_RETRY_MS).unref();
      throw error;
    });
    return keys;
  };
  return async (token) => {
    if (!looksLikeJwt(token)) return undefined;
    try {
      const { jwtVerify } = await import("jose");
      const { payload } = await jwtVerify(token, await keysOf(), {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: SHOPPER_ALGORITHMS,
        requiredClaims: ["exp", settings.customerClaim],
      });
      const customerId = payload[settings.customerClaim];
      return typeof customerId === "string" && customerId !== "" ? customerId : undefined;
    } catch {
      // Bad signature, expired, another issuer or audience, the issuer unreachable: all the same to the caller, a 401.
      return undefined;
    }
  };
}

/** The issuer's JWKS, found through its discovery document (OpenID Connect Discovery 1.0, section 4). */
async function discoverKeys(settings: ShopperIssuer): Promise<JWTVerifyGetKey> {
  const response = await fetch(`${settings.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, {
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`the issuer's discovery document answered ${response.status}`);
  const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  // A document naming another issuer could hand the API someone else's keys (Discovery 1.0, section 4.3).
  if (metadata.issuer !== settings.issuer) throw new Error("the discovery document names another issuer");
  if (typeof metadata.jwks_uri !== "string") throw new Error("the discovery document names no jwks_uri");
  const { createRemoteJWKSet } = await import("jose");
  return createRemoteJWKSet(new URL(metadata.jwks_uri), { cooldownDuration: settings.keysCooldownMs ?? 30_000 });
}
