import { getNamedType, isLeafType, isObjectType } from "graphql";
import { bookGlobalId } from "../../src/graphql/schema/global-ids";
import { COMMAND_COST, readFieldCosts, type Coordinate } from "../../src/graphql/limits/field-costs";
import { schema } from "../../src/graphql/schema/schema";
import { SALES_STATS_COMMANDS } from "../../src/sales/stats";
import { useTestApi } from "../support/api";
import { customers, seedBook } from "../support/factories";

/**
 * The schema's `@cost` weights against the commands each field sends, as the driver's command monitoring counts
 * them: a field whose commands grow with its parents (the books of a list, the aliases of a root field, the calls
 * of a mutation) sends them of its own and must weigh at least COMMAND_COST for each, however a later change to
 * its resolver moves them. A field read through the request's loaders sends one command per batch, whatever its
 * parents, and needs no weight.
 */
const api = useTestApi();
/** Two counts of parents: what a field sends for the second less the first, shared by the added parents, is what each costs. */
const FEW = 2;
const MANY = 6;
const BOOK_IDS = Array.from({ length: MANY }, (_, index) => String(index + 1));
const CUSTOMER_IDS = Array.from({ length: MANY }, (_, index) => `c${index}-00`);

beforeAll(async () => {
  // Every other book an outlier (70 buyers, past the threshold of 50): windows of buyers and purchases reach extra_sales.
  // Each customer bought several books, the typical and the outlier ones.
  for (const [index, id] of BOOK_IDS.entries()) {
    const buyers = CUSTOMER_IDS.flatMap((customer, at) => (at <= index ? [customer] : []));
    await seedBook(api.db, id, [...buyers, ...customers(index % 2 === 0 ? 3 : 70, 0, `b${id}-`)]);
  }
});

/** The parents a field is selected on, `count` of them, each with `selection`; `mutation` fields get one call each. */
type Parents = (count: number, selection: string) => string;

const aliases = (count: number, each: (index: number) => string) =>
  Array.from({ length: count }, (_, index) => `p${index}: ${each(index)}`).join(" ");
const onQuery: Parents = (count, selection) => (selection === "" ? "{ __typename }" : `{ ${aliases(count, () => selection)} }`);
const onBooks: Parents = (count, selection) => `{ books(first: ${count}) { edges { node { id ${selection} } } } }`;
const onCustomers: Parents = (count, selection) =>
  `{ ${aliases(count, (index) => `customer(id: "${CUSTOMER_IDS[index]}") { id ${selection} }`)} }`;
let nextPurchase = 0;
const onMutation: Parents = (count, selection) =>
  `mutation { ${aliases(count, (index) => selection.replace("$BOOK", BOOK_IDS[index]!).replaceAll("$N", String((nextPurchase += 1))))} }`;

/**
 * Each field that takes arguments or returns objects, how to select it on several parents, and with what: each way
 * it may send the most (a purchase keyed or not, a window with its count and whether books follow).
 */
const MEASURED: [Coordinate, string, Parents][] = [
  ["Query.book", `book(id: "3") { title }`, onQuery],
  ["Query.books", "books(first: 2) { totalCount pageInfo { hasNextPage } edges { node { id } } }", onQuery],
  ["Query.books", `books(first: 2, filter: { author: "A" }) { totalCount edges { node { id } } }`, onQuery],
  ["Query.viewer", "viewer { id }", onQuery],
  ["Query.customer", `customer(id: "c0-00") { id }`, onQuery],
  ["Query.node", `node(id: "${bookGlobalId(2)}") { id }`, onQuery],
  ["Query.nodes", `nodes(ids: ["${bookGlobalId(1)}", "${bookGlobalId(2)}"]) { id }`, onQuery],
  [
    "Query.salesStats",
    "salesStats(top: 2) { books outliers extraSalesDocuments overflowPagesPerOutlier { max } largestBooks { id } }",
    onQuery,
  ],
  ["Book.customersPurchased", "customersPurchased(first: 60) { totalCount pageInfo { hasNextPage } edges { node { id } } }", onBooks],
  ["Book.customersPurchased", "customersPurchased(last: 60) { edges { node { id } } }", onBooks],
  ["Book.purchasedBy", `purchasedBy(customerId: "c0-00")`, onBooks],
  ["Book.alsoBought", "alsoBought(first: 2) { sharedBuyers book { title } }", onBooks],
  ["Book.alsoBought", "alsoBought(first: 2) { sharedBuyers }", onBooks],
  ["Customer.booksPurchased", "booksPurchased(first: 2) { totalCount pageInfo { hasNextPage } edges { node { id } } }", onCustomers],
  ["Mutation.addBook", `addBook(input: { title: "T $N", author: "A" }) { id }`, onMutation],
  ["Mutation.recordPurchase", `recordPurchase(input: { bookId: "$BOOK", customerId: "buyer-$N" }) { storedIn }`, onMutation],
  [
    "Mutation.recordPurchase",
    `recordPurchase(input: { bookId: "$BOOK", customerId: "buyer-$N", purchaseId: "p-$N" }) { storedIn }`,
    onMutation,
  ],
];

/** What a field adds to the commands of `count` parents: the commands with it selected, less those without. */
async function commandsOf(parents: Parents, selection: string, count: number): Promise<number> {
  const sent = async (query: string) => {
    const commands = await api.monitor.record(async () => {
      const answer = await api.execute(query);
      expect(answer.errors).toBeUndefined();
    });
    return commands.length;
  };
  const without = parents === onMutation ? 0 : await sent(parents(count, ""));
  return (await sent(parents(count, selection))) - without;
}

const costs = readFieldCosts(schema);

describe("the schema's @cost weights", () => {
  it(`weigh salesStats at its ${SALES_STATS_COMMANDS} commands side by side, which one round sends for every alias`, async () => {
    // The first test of the file: no round of the server's is recent yet.
    const sent = await api.monitor.record(() => api.execute("{ a: salesStats { books largestBooks { id } } b: salesStats { outliers } }"));

    expect(costs.get("Query.salesStats")?.weight).toBe(COMMAND_COST * SALES_STATS_COMMANDS);
    expect(sent).toHaveLength(SALES_STATS_COMMANDS);
  });

  it("are measured for every field that takes arguments or returns objects", () => {
    const types = [schema.getQueryType(), schema.getMutationType(), schema.getType("Book"), schema.getType("Customer")];
    const fields = types.filter(isObjectType).flatMap((type) =>
      Object.values(type.getFields())
        .filter((field) => !field.name.startsWith("_") && (field.args.length > 0 || !isLeafType(getNamedType(field.type))))
        .map((field): Coordinate => `${type.name}.${field.name}`),
    );
    expect(new Set(MEASURED.map(([coordinate]) => coordinate))).toEqual(new Set(fields));
  });

  it.each(MEASURED)("cover the commands %s sends for each parent, selected as %s", async (coordinate, selection, parents) => {
    const few = await commandsOf(parents, selection, FEW);
    const many = await commandsOf(parents, selection, MANY);
    // What each added parent costs, rounded up: a loader's command for every parent at once adds nothing.
    const perParent = Math.ceil((many - few) / (MANY - FEW));

    // Named, so that a failure says which field weighs too little, and what it should weigh at least.
    const weight = costs.get(coordinate)?.weight ?? 0;
    expect([coordinate, weight]).toEqual([coordinate, Math.max(weight, COMMAND_COST * perParent)]);
  });
});
