import crypto, { createHash } from "node:crypto";
import { inspect } from "node:util";
import { ForbiddenError, UnauthenticatedError } from "../../src/auth/errors";
import { refusal } from "../../src/auth/guard";
import { callerOfRequests, identifyCaller, type Principal } from "../../src/auth/principal";
import { parseTokenSpecs } from "../../src/auth/tokens";
import { ConfigError, readConfig } from "../../src/config";
import { bearer, configuredTokens, tokenSpec, type TokenSpec } from "../support/tokens";

const reader = tokenSpec("reader", ["purchases:read"]);
const writer = tokenSpec("writer", ["catalog:write"]);
const both = tokenSpec("back-office", ["purchases:read", "catalog:write"]);
const specs = (...entries: unknown[]) => JSON.stringify(entries);

describe("parsing API_TOKENS", () => {
  it("keeps each token's name and scopes and, of the token itself, only its SHA-256 digest", () => {
    const [parsed] = parseTokenSpecs(specs(both));
    expect(parsed?.name).toBe("back-office");
    expect(parsed?.scopes).toEqual(new Set(["purchases:read", "catalog:write"]));
    expect(parsed?.digest).toEqual(createHash("sha256").update(both.token).digest());
    expect(inspect(parsed, { depth: 5 })).not.toContain(both.token);
  });

  it("accepts a token of exactly 32 characters", () => {
    expect(parseTokenSpecs(specs({ ...reader, token: "a".repeat(32) }))).toHaveLength(1);
  });

  it.each<[string, string, RegExp]>([
    ["text that is not JSON", `[{"name":"reader","token":"${reader.token}"`, /not valid JSON/],
    ["an object instead of an array", JSON.stringify(reader), /must be a JSON array/],
    ["an empty list", "[]", /empty list.*unset API_TOKENS/],
    ["an entry that is not an object", specs("just-a-token"), /entry 1 must be an object/],
    ["a missing name", specs({ token: reader.token, scopes: reader.scopes }), /entry 1 needs a "name"/],
    ["a name with spaces", specs({ ...reader, name: "the reader" }), /entry 1 needs a "name" of 1 to 64 letters/],
    ["a missing token", specs({ name: "reader", scopes: reader.scopes }), /entry 1 \("reader"\) needs a "token"/],
    ["a token of 31 characters", specs({ ...reader, token: "a".repeat(31) }), /token of 31 characters; use 32 to 512/],
    ["a token of 513 characters", specs({ ...reader, token: "a".repeat(513) }), /token of 513 characters/],
    ["a token with a space", specs({ ...reader, token: `${"a".repeat(20)} ${"b".repeat(20)}` }), /characters a bearer token cannot carry/],
    [
      "missing scopes",
      specs({ name: "reader", token: reader.token }),
      /needs "scopes", a non-empty array of purchases:read, catalog:write/,
    ],
    ["an empty scope list", specs({ ...reader, scopes: [] }), /needs "scopes"/],
    [
      "an unknown scope",
      specs({ ...reader, scopes: ["purchases:write"] }),
      /unknown scope "purchases:write"; known: purchases:read, catalog:write/,
    ],
    ["a misspelt field", specs({ ...reader, scope: ["catalog:write"] }), /unknown field "scope"; allowed: name, token, scopes/],
    ["a name used twice", specs(reader, { ...writer, name: "reader" }), /the name "reader" is used more than once/],
    ["a token used twice", specs(reader, { ...writer, token: reader.token }), /entry "writer" has the same token as an earlier entry/],
  ])("refuses %s with a message that says what to fix and never repeats a token", (_case, text, message) => {
    const attempt = () => parseTokenSpecs(text);
    expect(attempt).toThrow(message);
    for (const token of [reader.token, writer.token, "a".repeat(31)]) expect(attempt).not.toThrow(token);
  });

  it("lists every problem of every entry at once", () => {
    const attempt = () => parseTokenSpecs(specs({ ...reader, token: "short" }, { ...writer, scopes: ["admin"] }));
    expect(attempt).toThrow(/entry 1 \("reader"\) has a token of 5 characters.*; entry 2 \("writer"\) has an unknown scope "admin"/);
  });
});

describe("API_TOKENS in the configuration", () => {
  it("leaves the API open when unset outside production", () => {
    expect(readConfig({}).apiTokens).toBeUndefined();
    expect(readConfig({ NODE_ENV: "test" }).apiTokens).toBeUndefined();
  });

  it("refuses production without tokens, naming the variable and its format", () => {
    const attempt = () => readConfig({ NODE_ENV: "production" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/API_TOKENS: must be set when NODE_ENV=production.*JSON array of bearer tokens.*"scopes":\["purchases:read"\]/);
  });

  it("starts production with tokens configured", () => {
    const config = readConfig({ NODE_ENV: "production", MONGODB_URI: "mongodb://db:27017", API_TOKENS: specs(reader, writer) });
    expect(config.apiTokens?.map((token) => token.name)).toEqual(["reader", "writer"]);
  });

  it("reports a bad token list together with the other bad variables", () => {
    expect(() => readConfig({ PORT: "http", API_TOKENS: specs({ ...reader, scopes: [] }) })).toThrow(
      /PORT[\s\S]*API_TOKENS: entry 1 \("reader"\) needs "scopes"/,
    );
  });
});

describe("identifying the caller", () => {
  const tokens = configuredTokens(reader, writer, both);

  it("treats everyone as allowed everything when no tokens are configured, whatever they send", () => {
    expect(identifyCaller(undefined, undefined)).toEqual({ kind: "open" });
    expect(identifyCaller(undefined, "Bearer nonsense")).toEqual({ kind: "open" });
  });

  it("calls a request without an Authorization header anonymous", () => {
    expect(identifyCaller(tokens, undefined)).toEqual({ kind: "anonymous" });
  });

  // Issue 39: a request's context, its principal in it, outlives the scavenges; one principal per token is not copied per request.
  it("gives every request presenting one token the same principal, and every anonymous request the same one", () => {
    const first = identifyCaller(tokens, bearer(reader));
    expect(identifyCaller(tokens, bearer(reader))).toBe(first);
    expect(identifyCaller(tokens, bearer(writer))).not.toBe(first);
    expect(identifyCaller(tokens, undefined)).toBe(identifyCaller(tokens, undefined));
  });

  it.each<[string, TokenSpec]>([
    ["the first", reader],
    ["a middle", writer],
    ["the last", both],
  ])("recognizes %s configured token by its name and scopes", (_position, spec) => {
    expect(identifyCaller(tokens, bearer(spec))).toEqual({
      kind: "token",
      name: spec.name,
      scopes: new Set(spec.scopes),
      trustedDocumentsOnly: false,
    });
  });

  it("accepts the scheme in any case and spaces around the token, as RFC 6750 allows", () => {
    expect(identifyCaller(tokens, `bearer   ${reader.token} `)).toMatchObject({ kind: "token", name: "reader" });
  });

  it.each([
    ["an unknown token", `Bearer ${tokenSpec("stranger", ["catalog:write"]).token}`],
    ["a known token with one character more", `Bearer ${reader.token}x`],
    ["another scheme", `Basic ${Buffer.from(`reader:${reader.token}`).toString("base64")}`],
    ["the token without a scheme", reader.token],
    ["the scheme alone", "Bearer"],
    ["two tokens", `Bearer ${reader.token} ${writer.token}`],
    ["a token with characters outside RFC 6750's syntax", `Bearer ${reader.token}"`],
    ["an empty header", ""],
  ])("does not recognize %s", (_case, header) => {
    expect(identifyCaller(tokens, header)).toEqual({ kind: "unrecognized" });
  });

  it("compares the presented token with every configured token even after a match, so timing tells nothing", () => {
    const comparisons = jest.spyOn(crypto, "timingSafeEqual");
    try {
      identifyCaller(tokens, bearer(reader));
      expect(comparisons).toHaveBeenCalledTimes(tokens.length);
    } finally {
      comparisons.mockRestore();
    }
  });

  it("identifies a request's caller once, however many of the request's steps ask", () => {
    const comparisons = jest.spyOn(crypto, "timingSafeEqual");
    try {
      const callerOf = callerOfRequests(tokens);
      const request = { headers: { authorization: bearer(reader) } };
      expect(callerOf(request)).toMatchObject({ kind: "token", name: "reader" });
      expect(callerOf(request)).toBe(callerOf(request));
      expect(comparisons).toHaveBeenCalledTimes(tokens.length);
    } finally {
      comparisons.mockRestore();
    }
  });
});

describe("refusing a scope", () => {
  const asToken = (spec: TokenSpec) => identifyCaller(configuredTokens(spec), bearer(spec));

  it("lets a token with the scope through", () => {
    expect(refusal(asToken(reader), "purchases:read")).toBeUndefined();
    expect(refusal(asToken(both), "catalog:write")).toBeUndefined();
  });

  it("lets everyone through in open mode", () => {
    expect(refusal({ kind: "open" }, "catalog:write")).toBeUndefined();
  });

  it.each<[string, Principal]>([
    ["no credential", { kind: "anonymous" }],
    ["an unrecognized credential", { kind: "unrecognized" }],
  ])("refuses %s as UNAUTHENTICATED", (_case, principal) => {
    const refused = refusal(principal, "purchases:read");
    expect(refused).toBeInstanceOf(UnauthenticatedError);
    expect(refused?.message).toMatch(/needs a bearer token with the scope "purchases:read"/);
  });

  it("refuses a token without the scope as FORBIDDEN without naming the token", () => {
    const refused = refusal(asToken(writer), "purchases:read");
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect(refused?.message).not.toMatch(/writer/);
  });
});
