import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildSchema,
  getNamedType,
  isAbstractType,
  isInputObjectType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
} from "graphql";
import { CUSTOMER_FIELDS, FIELD_SCOPES } from "../../src/graphql/execution/access";

/**
 * Issue 54: a field that returns a customer's data must say who may read it, in FIELD_SCOPES (a scope) or
 * CUSTOMER_FIELDS (the shopper's own, or only ids the caller sent), so that a field added to the schema is never
 * open by default. Generated from schema.graphql: every field, every argument.
 */
const schema = buildSchema(readFileSync(join(__dirname, "..", "..", "schema.graphql"), "utf8"), { assumeValidSDL: true });
const customer = schema.getType("Customer") as GraphQLObjectType;
/** The types that carry customers: a window of a book's buyers, its edges, a new buyer. */
const HOLDERS = new Set(["Customer", "CustomerConnection", "CustomerEdge", "NewBuyer"]);
const ROOTS = new Set(["Query", "Mutation", "Subscription"]);

const objectTypes = Object.values(schema.getTypeMap()).filter(
  (type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith("__"),
);
const fields = objectTypes.flatMap((type) =>
  Object.values(type.getFields()).map((field) => ({ type, field, name: `${type.name}.${field.name}` })),
);

function listed(table: Record<string, Record<string, unknown> | undefined>, name: string): unknown {
  const [type, field] = name.split(".") as [string, string];
  return table[type]?.[field];
}

function carriesCustomers(type: GraphQLNamedType): boolean {
  return HOLDERS.has(type.name) || (isAbstractType(type) && schema.isSubType(type, customer));
}

/** Whether an argument, or a field of an input it takes, names a customer. */
function takesCustomerId(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((argument) => {
    const type = getNamedType(argument.type);
    return (
      /customer/i.test(argument.name) || (isInputObjectType(type) && Object.keys(type.getFields()).some((name) => /customer/i.test(name)))
    );
  });
}

const customerData = fields.filter(
  ({ type, field }) => type === customer || carriesCustomers(getNamedType(field.type)) || takesCustomerId(field),
);

describe("fields that return a customer's data", () => {
  it("finds the ones the schema has today, so the rule below is not vacuous", () => {
    expect(customerData.map(({ name }) => name)).toEqual(
      expect.arrayContaining([
        "Query.viewer",
        "Query.customer",
        "Query.node",
        "Customer.booksPurchased",
        "Book.customersPurchased",
        "Book.purchasedBy",
        "Mutation.recordPurchase",
        "Subscription.newBuyers",
      ]),
    );
  });

  it.each(customerData.map(({ name }) => name))("%s is in FIELD_SCOPES or CUSTOMER_FIELDS", (name) => {
    expect(listed(FIELD_SCOPES, name) ?? listed(CUSTOMER_FIELDS, name)).toBeDefined();
  });

  it("has no type carrying customers beyond the known ones: a new one's fields would be found by none of the rules", () => {
    const carriers = objectTypes.filter(
      (type) => !ROOTS.has(type.name) && Object.values(type.getFields()).some((field) => getNamedType(field.type) === customer),
    );
    expect(carriers.map((type) => type.name).filter((name) => !HOLDERS.has(name))).toEqual([]);
  });
});

describe("CUSTOMER_FIELDS", () => {
  const entries = Object.entries(CUSTOMER_FIELDS).flatMap(([type, entries]) =>
    Object.entries(entries ?? {}).map(([field, guard]) => ({ name: `${type}.${field}`, guard })),
  );

  it.each(entries.map(({ name }) => name))("names %s, a field of the schema", (name) => {
    expect(fields.some((field) => field.name === name)).toBe(true);
  });

  it.each(entries.filter(({ guard }) => guard === "owner").map(({ name }) => name))(
    "gives %s, a customer's own data, the scope the back office reads it with",
    (name) => expect(listed(FIELD_SCOPES, name)).toBeDefined(),
  );

  it.each(entries.filter(({ guard }) => guard === "within").map(({ name }) => name))(
    "reaches %s only through fields FIELD_SCOPES protects",
    (name) => {
      const parent = name.split(".")[0]!;
      const reachedBy = fields.filter(({ field }) => getNamedType(field.type).name === parent).map((field) => field.name);
      expect(reachedBy.length).toBeGreaterThan(0);
      expect(reachedBy.filter((by) => listed(FIELD_SCOPES, by) === undefined && listed(CUSTOMER_FIELDS, by) !== "within")).toEqual([]);
    },
  );
});
