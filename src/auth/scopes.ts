/**
 * What a bearer token may be allowed to do. Reading the catalog needs none of them; these guard
 * personal data and changes.
 */
export const SCOPES = ["purchases:read", "catalog:write"] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return (SCOPES as readonly unknown[]).includes(value);
}
