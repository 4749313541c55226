import { parse } from "graphql";
import { fragmentsOf } from "../../src/graphql/schema/selection";

it("finds every fragment definition of a document by its name, and nothing else", () => {
  const document = parse(`
    query Page { book(id: "1") { ...Figures ...Names } }
    fragment Figures on Book { purchaseCount }
    subscription Live { bookSales(ids: ["1"]) { ...Figures } }
    fragment Names on Book { title author }
  `);

  const fragments = fragmentsOf(document);

  expect([...fragments.keys()]).toEqual(["Figures", "Names"]);
  expect(fragments.get("Figures")?.typeCondition.name.value).toBe("Book");
  expect(fragments.get("Names")?.selectionSet.selections).toHaveLength(2);
  expect(fragments.get("Page")).toBeUndefined();
});

it("finds no fragments in a document that defines none", () => {
  expect(fragmentsOf(parse(`{ book(id: "1") { title } }`)).size).toBe(0);
});
