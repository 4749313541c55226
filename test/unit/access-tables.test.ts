import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { FIELD_SCOPES } from "../../src/graphql/execution/access";

/**
 * SECURITY.md's "Who may do what" and docs/api/access.md say which scope each protected field needs; FIELD_SCOPES
 * (src/graphql/execution/access.ts) is what the API enforces. Their tables once left out three protected fields: each
 * table's row for a scope must name exactly that scope's fields, as `Type.field`, and no other row one of them.
 */
const repository = resolve(__dirname, "../..");
const TABLES = ["SECURITY.md", "docs/api/access.md"];

const protectedFields = Object.entries(FIELD_SCOPES).flatMap(([type, fields]) =>
  Object.entries(fields ?? {}).map(([field, scope]) => ({ name: `${type}.${field}`, scope })),
);

/** The table rows of a document that start with a scope cell, as scope → the `Type.field` names the row mentions. */
function rowsByScope(path: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of readFileSync(resolve(repository, path), "utf8").split("\n")) {
    const row = /^\| (`[a-z]+:[a-z]+`|\(none\)) \|(.*)\|$/.exec(line);
    if (!row) continue;
    const names = [...row[2]!.matchAll(/`([A-Z][A-Za-z]*\.[a-z][A-Za-z]*)`/g)].map((match) => match[1]!);
    rows.set(row[1]!.replaceAll("`", ""), names);
  }
  return rows;
}

describe.each(TABLES)("the scope table in %s", (path) => {
  const rows = rowsByScope(path);

  it.each([...new Set(protectedFields.map((field) => field.scope))])("names every field FIELD_SCOPES gives %s, and only those", (scope) => {
    const expected = protectedFields.filter((field) => field.scope === scope).map((field) => field.name);
    expect([...new Set(rows.get(scope))].sort()).toEqual(expected.sort());
  });

  it("names no protected field in another scope's row or among the public ones", () => {
    const misplaced = [...rows].flatMap(([scope, names]) =>
      names
        .filter((name) => protectedFields.some((field) => field.name === name && field.scope !== scope))
        .map((name) => `${scope}: ${name}`),
    );
    expect(misplaced).toEqual([]);
  });
});
