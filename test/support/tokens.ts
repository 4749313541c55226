import { createHash } from "node:crypto";
import type { Scope } from "../../src/auth/scopes";
import { parseTokenSpecs, type ConfiguredToken } from "../../src/auth/tokens";

/** One entry of API_TOKENS as an operator writes it. */
export interface TokenSpec {
  name: string;
  token: string;
  scopes: Scope[];
}

/** A token entry whose secret (64 hex digits) is derived from its name, so each test's tokens differ and stay stable. */
export function tokenSpec(name: string, scopes: Scope[]): TokenSpec {
  return { name, token: createHash("sha256").update(`test token ${name}`).digest("hex"), scopes };
}

/** The tokens as the server holds them after reading API_TOKENS. */
export function configuredTokens(...specs: TokenSpec[]): ConfiguredToken[] {
  return parseTokenSpecs(JSON.stringify(specs));
}

export function bearer({ token }: TokenSpec): string {
  return `Bearer ${token}`;
}
