import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import * as oidc from "openid-client";
import type { Connect, Plugin } from "vite";
import { SHOPPER_GRAPHQL } from "./routes";

export { SHOPPER_GRAPHQL };

/**
 * The storefront's server side signs shoppers in and holds their tokens (a backend-for-frontend, as the OAuth 2.0 for
 * Browser-Based Applications practice recommends): the authorization code flow with PKCE and state runs here, the
 * access token stays in this process's memory under a random session id, and the browser holds only that id, in an
 * HttpOnly, SameSite=Lax cookie no script can read. A token in page JavaScript is one cross-site scripting bug away
 * from being sent elsewhere; a session id in an HttpOnly cookie cannot be read at all and is worth nothing off this
 * origin.
 *
 * - `GET /auth/login?returnTo=/#/book/2` sends the browser to the issuer's sign-in page;
 * - `GET /auth/callback` trades the issuer's code for the tokens and starts the session;
 * - `POST /auth/logout` ends it;
 * - `GET /auth/session` says who is signed in (`{ signedIn, customerId }`), never a token;
 * - `/shopper/graphql` is the API's /graphql with the signed-in shopper's access token (401 without a session).
 */
export interface SessionOptions {
  /** The OpenID Connect issuer shoppers sign in at (its discovery document names the endpoints). */
  issuer: string;
  /** The storefront's client id at the issuer: a public client, so PKCE and no secret. */
  clientId: string;
}

export const SESSION_COOKIE = "storefront_session";
const SIGN_IN_COOKIE = "storefront_sign_in";
// Long enough to type a password; a sign-in left longer starts again.
const SIGN_IN_TTL_MS = 10 * 60_000;
// Bounds on what anyone may make this process hold: each visit to /auth/login holds one pending sign-in.
const MAX_PENDING_SIGN_INS = 10_000;
const MAX_SESSIONS = 100_000;
// For an issuer whose token response leaves out expires_in.
const DEFAULT_SESSION_SECONDS = 300;

interface PendingSignIn {
  state: string;
  codeVerifier: string;
  returnTo: string;
}

interface Session {
  accessToken: string;
  customerId: string;
}

export function storefrontSession(options: SessionOptions): Plugin {
  const middleware = sessionMiddleware(options);
  return {
    name: "storefront-session",
    // Added before vite's own middlewares, its proxy among them: the shopper's token is set before the request is forwarded.
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

function sessionMiddleware({ issuer, clientId }: SessionOptions): Connect.NextHandleFunction {
  const pending = new LRUCache<string, PendingSignIn>({ max: MAX_PENDING_SIGN_INS, ttl: SIGN_IN_TTL_MS });
  // Each session lives as long as its access token: after that the API would refuse it anyway.
  const sessions = new LRUCache<string, Session>({ max: MAX_SESSIONS, ttl: DEFAULT_SESSION_SECONDS * 1000 });
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(new URL(issuer), clientId, undefined, oidc.None(), {
        // The development issuer is plain HTTP on loopback; any other issuer is named with https.
        execute: new URL(issuer).protocol === "http:" ? [oidc.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };
  const sessionOf = (request: IncomingMessage) => {
    const id = cookies(request)[SESSION_COOKIE];
    return id === undefined ? undefined : sessions.get(id);
  };

  return (request, response, next) => {
    // Joined, not resolved: a path such as "//" would otherwise be read as another host.
    const url = new URL(`${originOf(request)}${request.url ?? "/"}`);
    const route = `${request.method} ${url.pathname}`;
    if (!url.pathname.startsWith("/auth/") && url.pathname !== SHOPPER_GRAPHQL) return next();
    // Another site's page may not use the shopper's session (its cookie is SameSite=Lax, this refuses the rest).
    if (foreignOrigin(request) === false) return answer(response, 404, "text/plain", "Not found\n");
    if (url.pathname === SHOPPER_GRAPHQL) {
      const session = sessionOf(request);
      if (!session)
        // The GraphQL over HTTP media type: clients read its errors whatever the status.
        return answer(response, 401, "application/graphql-response+json", JSON.stringify(SIGN_IN_FIRST));
      request.headers.authorization = `Bearer ${session.accessToken}`;
      return next();
    }
    if (route === "GET /auth/session") {
      const session = sessionOf(request);
      const body = session ? { signedIn: true, customerId: session.customerId } : { signedIn: false };
      return answer(response, 200, "application/json", JSON.stringify(body));
    }
    if (route === "POST /auth/logout") {
      const id = cookies(request)[SESSION_COOKIE];
      if (id !== undefined) sessions.delete(id);
      response.setHeader("set-cookie", cookie(request, SESSION_COOKIE, "", 0));
      return redirect(response, "/");
    }
    if (route === "GET /auth/login") {
      void signIn(request, response, url).catch((error: unknown) => issuerAway(response, error));
      return;
    }
    if (route === "GET /auth/callback") {
      void callback(request, response, url).catch((error: unknown) => signInFailed(response, error));
      return;
    }
    return answer(response, 404, "text/plain", "Not found\n");
  };

  async function signIn(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const config = await configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const id = randomId();
    pending.set(id, { state, codeVerifier, returnTo: localPath(url.searchParams.get("returnTo")) });
    const target = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${originOf(request)}/auth/callback`,
      scope: "openid",
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
    });
    // Binds the sign-in to this browser: the callback is taken only with the cookie set here (no login CSRF).
    response.setHeader("set-cookie", cookie(request, SIGN_IN_COOKIE, id, SIGN_IN_TTL_MS / 1000));
    redirect(response, target.href);
  }

  async function callback(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const id = cookies(request)[SIGN_IN_COOKIE];
    const started = id === undefined ? undefined : pending.get(id);
    if (id !== undefined) pending.delete(id);
    if (!started) throw new Error("no sign-in was started in this browser, or it was started over 10 minutes ago");
    const tokens = await oidc.authorizationCodeGrant(await configuration(), url, {
      pkceCodeVerifier: started.codeVerifier,
      expectedState: started.state,
    });
    const customerId = tokens.claims()?.sub;
    if (customerId === undefined) throw new Error("the issuer's ID token names no subject");
    const sessionId = randomId();
    const seconds = tokens.expiresIn() ?? DEFAULT_SESSION_SECONDS;
    sessions.set(sessionId, { accessToken: tokens.access_token, customerId }, { ttl: seconds * 1000 });
    response.setHeader("set-cookie", [cookie(request, SESSION_COOKIE, sessionId, seconds), cookie(request, SIGN_IN_COOKIE, "", 0)]);
    redirect(response, started.returnTo);
  }
}

const SIGN_IN_FIRST = {
  errors: [{ message: "Sign in to do this: no shopper is signed in on this storefront.", extensions: { code: "UNAUTHENTICATED" } }],
};

function issuerAway(response: ServerResponse, error: unknown): void {
  console.error(`storefront: sign-in could not start: ${(error as Error).message}`);
  answer(response, 503, "text/plain", "Signing in is unavailable right now: the sign-in service cannot be reached. Try again shortly.\n");
}

function signInFailed(response: ServerResponse, error: unknown): void {
  console.error(`storefront: sign-in failed: ${(error as Error).message}`);
  answer(response, 400, "text/plain", "Signing in did not complete. Start again from the storefront's Sign in.\n");
}

const randomId = () => randomBytes(32).toString("base64url");

/** Only a path on this origin: anything else (`//elsewhere`, `https://…`) would make the sign-in an open redirect. */
function localPath(value: string | null): string {
  return value !== null && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}

function originOf(request: IncomingMessage): string {
  const secure = "encrypted" in request.socket && request.socket.encrypted === true;
  return `${secure ? "https" : "http"}://${request.headers.host ?? "localhost"}`;
}

function cookie(request: IncomingMessage, name: string, value: string, maxAgeSeconds: number): string {
  const secure = originOf(request).startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(maxAgeSeconds)}${secure}`;
}

function cookies(request: IncomingMessage): Record<string, string> {
  const found: Record<string, string> = {};
  for (const pair of (request.headers.cookie ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at > 0) found[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return found;
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { location, "cache-control": "no-store" }).end();
}

function answer(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" }).end(body);
}

/**
 * Only the page's own origin (or a client that is no browser, which sends no Origin and could as well call the API
 * itself) gets through, for the WebSocket and for HTTP alike. A browser sends any site's WebSocket with no CORS check,
 * and the API answers every origin's HTTP request (`access-control-allow-origin: *`): without this, another site open
 * in the same browser could subscribe, or read a query it sent by hash, with the storefront's token. A browser sends
 * Origin with every cross-origin request, so a request from another site always names it. A refused request is
 * answered 404, as vite answers a bypassed one.
 */
export function foreignOrigin(request: IncomingMessage): false | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  return URL.canParse(origin) && new URL(origin).host === request.headers.host ? undefined : false;
}
