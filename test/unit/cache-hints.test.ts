import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSchema, getDirectiveValues, getNamedType, isObjectType, type GraphQLField, type GraphQLSchema } from "graphql";
import { FIELD_SCOPES } from "../../src/graphql/execution/access";

/**
 * The hints in schema.graphql against the rules SECURITY.md states: a field that needs
 * `purchases:read` is private, and no mutation's answer is cached. A field added to either without
 * its hint would otherwise take the public catalog max age.
 */
// Unvalidated: directives of other conventions in the file (a subgraph's @key, say) need no definitions here.
const schema = buildSchema(readFileSync(join(__dirname, "..", "..", "schema.graphql"), "utf8"), { assumeValidSDL: true });

type Hint = { maxAge?: number; scope?: string };

function hintOn(schema: GraphQLSchema, node: Parameters<typeof getDirectiveValues>[1]): Hint {
  return (getDirectiveValues(schema.getDirective("cacheControl")!, node) ?? {}) as Hint;
}

/** The field's own hint, or, for its scope, the hint on the type it returns, as Apollo's cache control reads them. */
function scopeOf(field: GraphQLField<unknown, unknown>): string | undefined {
  const returned = getNamedType(field.type);
  return hintOn(schema, field.astNode!).scope ?? (isObjectType(returned) ? hintOn(schema, returned.astNode!).scope : undefined);
}

const readFields = Object.entries(FIELD_SCOPES).flatMap(([type, fields]) =>
  Object.entries(fields ?? {})
    .filter(([, scope]) => scope === "purchases:read")
    .map(([field]) => `${type}.${field}`),
);

describe("cache hints in schema.graphql", () => {
  it.each(readFields)("marks %s, which needs purchases:read, PRIVATE", (path) => {
    const [type, field] = path.split(".") as [string, string];
    const definition = (schema.getType(type) as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields()[field]!;
    expect(scopeOf(definition)).toBe("PRIVATE");
  });

  it("marks every customer PRIVATE wherever it is returned", () => {
    expect(scopeOf(schema.getQueryType()!.getFields()["customer"]!)).toBe("PRIVATE");
  });

  it.each(Object.keys(schema.getMutationType()!.getFields()))("never caches the answer of the mutation %s", (name) => {
    expect(hintOn(schema, schema.getMutationType()!.getFields()[name]!.astNode!).maxAge).toBe(0);
  });

  it("leaves the catalog's listing public, to take CATALOG_MAX_AGE_SECONDS", () => {
    const books = schema.getQueryType()!.getFields()["books"]!;
    expect([scopeOf(books), hintOn(schema, books.astNode!).maxAge]).toEqual([undefined, undefined]);
  });
});
