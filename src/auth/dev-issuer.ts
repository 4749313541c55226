// Types only: oidc-provider is an ES module, imported lazily by startDevIssuer (never in production, never by a test's API).
import type { Configuration, JWK, Provider } from "oidc-provider" with { "resolution-mode": "import" };
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import http from "node:http";

/**
 * The development OpenID provider `npm start` serves on loopback when OIDC_ISSUER is not set (never in production):
 * oidc-provider, signing shoppers' access tokens as JWTs for the API's audience. Its shoppers are the demo catalog's
 * customers; its sign-in page (oidc-provider's development interactions) takes any of their ids with any password.
 */
export interface DevIssuer {
  /** The issuer's identifier and base URL, as OIDC_ISSUER would name it. */
  readonly issuer: string;
  /** A shopper's access token, minted by the provider itself (what `npm run shopper-token` prints). */
  mint(customerId: string, options?: MintOptions): Promise<string>;
  /** Starts signing with a new key, keeping the previous one published, as an issuer's key rotation does. */
  rotateKeys(): void;
  close(): Promise<void>;
}

export interface MintOptions {
  /** Seconds until the token expires; an hour unless given. */
  expiresInSeconds?: number;
  /** The audience (resource indicator) the token is for; the API's unless given. */
  audience?: string;
}

/** The storefront's client at the development issuer: a public client with PKCE, as a backend-for-frontend signs in. */
export const DEV_CLIENT_ID = "storefront";
const DEV_REDIRECT_URIS = ["http://localhost:5173/auth/callback", "http://127.0.0.1:5173/auth/callback"];
const TOKEN_SECONDS = 3_600;
// The demo catalog's customers (src/maintenance/demo-catalog.ts): the manual's user00 … user999 and the generated customer-1 … customer-100000.
const DEMO_CUSTOMER = /^(user\d{2,3}|customer-([1-9]\d{0,4}|100000))$/;

export function isDemoCustomer(id: string): boolean {
  return DEMO_CUSTOMER.test(id);
}

/** Serves the development issuer on 127.0.0.1:`port`; rejects when the port is taken. */
export async function startDevIssuer({ port, audience }: { port: number; audience: string }): Promise<DevIssuer> {
  const { default: ProviderClass } = await import("oidc-provider");
  const issuer = `http://127.0.0.1:${port}`;
  const keys = [signingKey()];
  const cookieKeys = [randomBytes(32).toString("hex")];
  const build = () => new ProviderClass(issuer, configuration(audience, keys, cookieKeys));
  let provider = build();
  const rotateKeys = () => {
    // The new key first signs; the previous one stays published for the tokens it signed until they expire.
    keys.splice(0, keys.length, signingKey(), keys[0]!);
    provider = build();
  };
  const server = http.createServer((request, response) => {
    if (request.url?.startsWith("/dev/")) void devRoute(provider, audience, rotateKeys, request, response);
    else void provider.callback()(request, response);
  });
  await once(server.listen(port, "127.0.0.1"), "listening");
  return {
    issuer,
    mint: (customerId, options) => mint(provider, audience, customerId, options),
    rotateKeys,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function signingKey(): JWK {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...(privateKey.export({ format: "jwk" }) as JWK), kid: randomUUID(), alg: "RS256", use: "sig" };
}

function configuration(audience: string, keys: JWK[], cookieKeys: string[]): Configuration {
  return {
    clients: [{ client_id: DEV_CLIENT_ID, token_endpoint_auth_method: "none", redirect_uris: DEV_REDIRECT_URIS, response_types: ["code"] }],
    pkce: { required: () => true },
    cookies: { keys: cookieKeys },
    jwks: { keys: [...keys] },
    features: {
      devInteractions: { enabled: true },
      // Access tokens are opaque unless they are for a resource server: this one's are JWTs the API verifies by itself.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => resourceServer(audience),
      },
    },
    findAccount: (_ctx, id) => (isDemoCustomer(id) ? { accountId: id, claims: () => ({ sub: id }) } : undefined),
  };
}

function resourceServer(audience: string) {
  return { scope: "openid", audience, accessTokenFormat: "jwt" as const, accessTokenTTL: TOKEN_SECONDS };
}

/** A token as the authorization code grant would issue it: a grant for the shopper, then an access token of that grant. */
async function mint(provider: Provider, audience: string, customerId: string, options: MintOptions = {}): Promise<string> {
  if (!isDemoCustomer(customerId)) throw new RangeError(`"${customerId}" is not one of the demo catalog's customers`);
  const seconds = options.expiresInSeconds ?? TOKEN_SECONDS;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > TOKEN_SECONDS)
    throw new RangeError(`expires_in must be a whole number of seconds from 1 to ${TOKEN_SECONDS}`);
  const client = await provider.Client.find(DEV_CLIENT_ID);
  if (!client) throw new Error("the development issuer lost its client");
  const resource = options.audience ?? audience;
  const grant = new provider.Grant({ accountId: customerId, clientId: DEV_CLIENT_ID });
  grant.addOIDCScope("openid");
  grant.addResourceScope(resource, "openid");
  const token = new provider.AccessToken({
    accountId: customerId,
    client,
    grantId: await grant.save(),
    gty: "authorization_code",
    scope: "openid",
    resourceServer: new provider.ResourceServer(resource, { ...resourceServer(resource), audience: resource }),
    expiresIn: seconds,
  });
  return token.save();
}

/**
 * GET /dev/shopper-token?customer=user900[&expires_in=1][&audience=…]: a shopper's token as text, for
 * `npm run shopper-token`, curl and the tests; POST /dev/rotate-keys rotates the signing key. Loopback only, as the
 * issuer's sign-in page, which takes any shopper too.
 */
async function devRoute(
  provider: Provider,
  audience: string,
  rotateKeys: () => void,
  request: http.IncomingMessage,
  response: http.ServerResponse,
) {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (request.method === "POST" && url.pathname === "/dev/rotate-keys") {
    rotateKeys();
    return answer(response, 200, "rotated\n");
  }
  if (request.method !== "GET" || url.pathname !== "/dev/shopper-token") return answer(response, 404, "not found\n");
  const expiresIn = url.searchParams.get("expires_in");
  try {
    const token = await mint(provider, audience, url.searchParams.get("customer") ?? "", {
      ...(expiresIn === null ? {} : { expiresInSeconds: Number(expiresIn) }),
      ...(url.searchParams.has("audience") ? { audience: url.searchParams.get("audience")! } : {}),
    });
    answer(response, 200, `${token}\n`);
  } catch (error) {
    answer(response, 400, `${(error as Error).message}\n`);
  }
}

function answer(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end(text);
}
