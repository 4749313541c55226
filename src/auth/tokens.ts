import { hash } from "node:crypto";
import { isScope, SCOPES, type Scope } from "./scopes";

/**
 * A configured token as kept in memory: its SHA-256 digest, never the token itself, so neither a
 * heap dump nor a logged configuration gives a usable credential away.
 */
export interface ConfiguredToken {
  readonly name: string;
  readonly digest: Buffer;
  readonly scopes: ReadonlySet<Scope>;
  /** Whether it may run only the trusted documents (TRUSTED_DOCUMENTS), by hash: a token behind a public page. */
  readonly trustedDocumentsOnly: boolean;
}

export const MIN_TOKEN_LENGTH = 32;
// Long enough for any generated secret, short enough that a configuration typo cannot paste a file in.
export const MAX_TOKEN_LENGTH = 512;
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
// RFC 6750's b64token: anything else could not be sent in an Authorization header as it stands.
export const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const FIELDS = ["name", "token", "scopes", "trustedDocuments"];

export function digestToken(token: string): Buffer {
  // One call, no Hash object: every request with a token digests it.
  return hash("sha256", token, "buffer");
}

/**
 * Parses API_TOKENS, a JSON array of `{name, token, scopes}`, into digests. Throws an Error listing
 * every problem at once; messages name entries by position and name and never repeat a token.
 */
export function parseTokenSpecs(text: string): ConfiguredToken[] {
  const entries = parseJsonArray(text);
  const problems = entries.flatMap((entry, index) => entryProblems(entry, index));
  if (problems.length === 0) problems.push(...duplicateProblems(entries as TokenSpec[]));
  if (problems.length > 0) throw new Error(problems.join("; "));
  return (entries as TokenSpec[]).map(({ name, token, scopes, trustedDocuments }) => ({
    name,
    digest: digestToken(token),
    scopes: new Set(scopes),
    trustedDocumentsOnly: trustedDocuments === true,
  }));
}

interface TokenSpec {
  name: string;
  token: string;
  scopes: Scope[];
  trustedDocuments?: boolean;
}

function parseJsonArray(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input, which holds the tokens.
    throw new Error(`not valid JSON; expected ${EXAMPLE}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`must be a JSON array of tokens; expected ${EXAMPLE}`);
  if (parsed.length === 0)
    throw new Error("is an empty list: configure at least one token, or unset API_TOKENS to leave the API open in development");
  return parsed;
}

export const EXAMPLE = `[{"name":"storefront","token":"<${MIN_TOKEN_LENGTH} or more characters>","scopes":["purchases:read"]}]`;

function entryProblems(entry: unknown, index: number): string[] {
  const label = `entry ${index + 1}`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return [`${label} must be an object {name, token, scopes}`];
  const fields = entry as Record<string, unknown>;
  const named = typeof fields.name === "string" ? `${label} ("${fields.name}")` : label;
  const unknownFields = Object.keys(fields).filter((field) => !FIELDS.includes(field));
  return [
    ...unknownFields.map((field) => `${named} has an unknown field "${field}"; allowed: ${FIELDS.join(", ")}`),
    ...nameProblems(fields.name, label),
    ...tokenProblems(fields.token, named),
    ...scopeProblems(fields.scopes, named),
    ...(fields.trustedDocuments === undefined || typeof fields.trustedDocuments === "boolean"
      ? []
      : [`${named} has a "trustedDocuments" that is not true or false`]),
  ];
}

function nameProblems(name: unknown, label: string): string[] {
  return typeof name === "string" && NAME.test(name) ? [] : [`${label} needs a "name" of 1 to 64 letters, digits, ".", "_" or "-"`];
}

function tokenProblems(token: unknown, label: string): string[] {
  if (typeof token !== "string") return [`${label} needs a "token" string`];
  if (token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH) {
    return [
      `${label} has a token of ${token.length} characters; use ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH}, e.g. from "openssl rand -hex 32"`,
    ];
  }
  return BEARER_TOKEN.test(token)
    ? []
    : [
        `${label} has a token with characters a bearer token cannot carry; use letters, digits and -._~+/ (e.g. from "openssl rand -hex 32")`,
      ];
}

function scopeProblems(scopes: unknown, label: string): string[] {
  if (!Array.isArray(scopes) || scopes.length === 0) return [`${label} needs "scopes", a non-empty array of ${SCOPES.join(", ")}`];
  return scopes
    .filter((scope) => !isScope(scope))
    .map((scope) => `${label} has an unknown scope ${JSON.stringify(scope)}; known: ${SCOPES.join(", ")}`);
}

function duplicateProblems(entries: readonly TokenSpec[]): string[] {
  const names = entries.map((entry) => entry.name);
  const repeatedNames = new Set(names.filter((name, index) => names.indexOf(name) !== index));
  // Two entries with one token would make the caller's name and scopes depend on which one matched.
  const sharingAToken = entries.filter((entry, index) => entries.findIndex((other) => other.token === entry.token) !== index);
  return [
    ...[...repeatedNames].map((name) => `the name "${name}" is used more than once`),
    ...sharingAToken.map((entry) => `entry "${entry.name}" has the same token as an earlier entry; give each entry its own`),
  ];
}
