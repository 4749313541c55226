import { graphql } from "../__generated__";
import type { BookFilter, BookOrder, BrowseCatalogQuery } from "../__generated__/graphql";
import { TEST_SETTINGS, useTestApi } from "../support/api";
import { addBook, customers, recordPurchases } from "../support/factories";
import { insertBooksWithPurchases } from "../../src/maintenance/bulk";
import { salesCollection, type BookDocument } from "../../src/sales/documents";
import { compareBookIds } from "../../src/sales/id-order";
import { normalizedWords } from "../../src/sales/search-words";

const BROWSE = graphql(`
  query BrowseCatalog($first: Int, $after: String, $last: Int, $before: String, $orderBy: BookOrder, $filter: BookFilter, $search: String) {
    books(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter, search: $search) {
      totalCount
      ...BookPage
    }
  }
`);

type Browse = { orderBy?: BookOrder; filter?: BookFilter; search?: string };
type Field = BookOrder["field"];

// Titles, authors and years chosen to tie: equal years, equal counts, a title shared by two authors, books without a year.
const SHELF: { title: string; author: string; year?: number; purchases: number }[] = [
  { title: "The Wooden Amulet", author: "Lesley Moreno", year: 2023, purchases: 12 },
  { title: "Invisible Cities", author: "Italo Calvino", year: 1972, purchases: 3 },
  { title: "If on a Winter's Night a Traveler", author: "Italo Calvino", year: 1979, purchases: 3 },
  { title: "Wuthering Heights", author: "Emily Brontë", year: 1847, purchases: 7 },
  { title: "Jane Eyre", author: "Charlotte Brontë", year: 1847, purchases: 7 },
  { title: "Germinal", author: "Émile Zola", year: 1885, purchases: 0 },
  { title: "Nana", author: "Émile Zola", purchases: 1 },
  { title: "Untitled Notebook", author: "Anonymous", purchases: 0 },
  { title: "Jane Eyre", author: "A Pastiche Writer", year: 2001, purchases: 3 },
  { title: "The Amulet of Samarkand", author: "Jonathan Stroud", year: 2003, purchases: 12 },
  { title: "Woodland Walks", author: "Lesley Moreno", year: 2019, purchases: 0 },
  { title: "Zero to One", author: "Peter Thiel", year: 2014, purchases: 5 },
];

const api = useTestApi();
let stored: BookDocument[];
beforeAll(async () => {
  const books = SHELF.map(({ purchases, ...book }, index) => ({
    // Mixed id types, as the catalog allows: ties by id cross them in MongoDB's order.
    book: { id: index % 4 === 3 ? `s-${index}` : index + 1, ...book },
    customers: customers(purchases, 0, `buyer-${index}-`),
  }));
  await insertBooksWithPurchases(api.db, books, TEST_SETTINGS);
  stored = await salesCollection(api.db).find({}).toArray();
});

/** The stored books a browse should list, in its order, worked out here without the API's queries. */
function expected({ orderBy = { field: "ID", direction: "ASC" }, filter = {}, search }: Browse): string[] {
  const matching = stored.filter(
    (book) =>
      (filter.author == null || book.author === filter.author) &&
      (filter.yearFrom == null || (book.year != null && book.year >= filter.yearFrom)) &&
      (filter.yearTo == null || (book.year != null && book.year <= filter.yearTo)) &&
      matchesSearch(book, search),
  );
  const sign = orderBy.direction === "ASC" ? 1 : -1;
  // PURCHASE_COUNT DESC takes tied books in ascending id order (its index's), so its ASC takes them descending.
  const idSign = orderBy.field === "PURCHASE_COUNT" ? -sign : sign;
  return matching
    .sort((a, b) => sign * compareKeys(orderBy.field, a, b) || idSign * compareBookIds(a._id, b._id))
    .map((book) => String(book._id));
}

function compareKeys(field: Field, a: BookDocument, b: BookDocument): number {
  switch (field) {
    case "ID":
      return 0;
    case "TITLE":
      return Buffer.compare(Buffer.from(a.title), Buffer.from(b.title));
    case "YEAR":
      // A missing year sorts before every year, as mongod sorts missing values.
      return (a.year ?? -Infinity) - (b.year ?? -Infinity) || 0;
    case "PURCHASE_COUNT":
      return a.purchase_count - b.purchase_count;
  }
}

function matchesSearch(book: BookDocument, search: string | undefined): boolean {
  const wanted = normalizedWords(search ?? "");
  const own = normalizedWords(`${book.title} ${book.author}`);
  return wanted.every((word, index) => own.some((its) => (index === wanted.length - 1 ? its.startsWith(word) : its === word)));
}

async function browse(variables: Browse & { first?: number; after?: string | null; last?: number; before?: string | null }) {
  const result = await api.execute(BROWSE, variables);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!.books;
}

const idsOf = (page: BrowseCatalogQuery["books"]) => page.edges.map((edge) => edge.node.id);

/** Every page forward with `first`, checking that each page after the first says it has a previous one. */
async function walkForward(request: Browse, first: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: BrowseCatalogQuery["books"] = await browse({ ...request, first, after });
    expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
    ids.push(...idsOf(page));
    if (!page.pageInfo.hasNextPage) return ids;
    after = page.pageInfo.endCursor;
  }
}

/** Every page backward with `last`, from the end of the list. */
async function walkBackward(request: Browse, last: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null = null;
  for (;;) {
    const page: BrowseCatalogQuery["books"] = await browse({ ...request, last, before });
    expect(page.pageInfo.hasNextPage).toBe(before !== null);
    ids.unshift(...idsOf(page));
    if (!page.pageInfo.hasPreviousPage) return ids;
    before = page.pageInfo.startCursor;
  }
}

const ORDERS: BookOrder[] = (["ID", "TITLE", "YEAR", "PURCHASE_COUNT"] as const).flatMap((field) =>
  (["ASC", "DESC"] as const).map((direction) => ({ field, direction })),
);

describe("Query.books in each order", () => {
  it.each(ORDERS)("lists every stored book by $field $direction, ties by id, forward and backward two at a time", async (orderBy) => {
    const all = expected({ orderBy });
    expect(all).toHaveLength(SHELF.length);
    expect(await walkForward({ orderBy }, 2)).toEqual(all);
    expect(await walkBackward({ orderBy }, 2)).toEqual(all);
    expect(idsOf(await browse({ orderBy, first: 100 }))).toEqual(all);
  });

  it("lists the bestsellers first with PURCHASE_COUNT DESC, tied counts in id order", async () => {
    expect(idsOf(await browse({ orderBy: { field: "PURCHASE_COUNT", direction: "DESC" }, first: 4 }))).toEqual(["1", "10", "5", "s-3"]);
  });

  it("puts the books without a year first in YEAR ASC and last in YEAR DESC", async () => {
    expect(idsOf(await browse({ orderBy: { field: "YEAR", direction: "ASC" }, first: 2 }))).toEqual(["7", "s-7"]);
    expect(idsOf(await browse({ orderBy: { field: "YEAR", direction: "DESC" }, last: 2 }))).toEqual(["s-7", "7"]);
  });

  it("takes orderBy: null as the default order, by id", async () => {
    expect(idsOf(await browse({ orderBy: null as unknown as BookOrder, first: 100 }))).toEqual(expected({}));
  });
});

describe("Query.books filtered", () => {
  const FILTERS: [string, BookFilter, number][] = [
    ["an author's books", { author: "Émile Zola" }, 2],
    ["books from a year on", { yearFrom: 2003 }, 4],
    ["books up to a year", { yearTo: 1885 }, 3],
    ["books within years", { yearFrom: 1972, yearTo: 1979 }, 2],
    ["an author's books within years", { author: "Lesley Moreno", yearFrom: 2020 }, 1],
  ];

  it.each(FILTERS)("lists exactly %s in every order, forward and backward", async (_name, filter, size) => {
    for (const orderBy of ORDERS) {
      const all = expected({ orderBy, filter });
      expect(all).toHaveLength(size);
      expect(await walkForward({ orderBy, filter }, 1)).toEqual(all);
      expect(await walkBackward({ orderBy, filter }, 1)).toEqual(all);
    }
    expect((await browse({ filter, first: 0 })).totalCount).toBe(size);
  });

  it("answers an author with no books with an empty window and no cursors", async () => {
    const page = await browse({ filter: { author: "Nobody Wrote This" }, first: 10 });
    expect(page).toEqual({
      totalCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it("leaves out the books without a year from any year filter", async () => {
    const ids = idsOf(await browse({ filter: { yearTo: 3000 }, first: 100 }));
    expect(ids).toHaveLength(SHELF.length - 2);
    expect(ids).not.toContain("7");
  });
});

describe("Query.books searched", () => {
  it.each([
    ["amulet", ["1", "10"]],
    ["wooden amu", ["1"]],
    ["wood amu", []],
    ["WOODEN amulet", ["1"]],
    ["wood", ["1", "11"]],
    ["bronte", ["5", "s-3"]],
    ["Emile zo", ["6", "7"]],
    ["émile", ["6", "7"]],
    ["jane eyre pastiche", ["9"]],
    ["calvino cities", ["2"]],
    ["zola amulet", []],
    ["xylophone", []],
  ])("finds %j in titles and authors, case and accents aside, the last word as a prefix", async (search, ids) => {
    expect(expected({ search })).toEqual(ids);
    expect(idsOf(await browse({ search, first: 100 }))).toEqual(ids);
    expect((await browse({ search, first: 0 })).totalCount).toBe(ids.length);
  });

  it("orders, filters and pages a search like any list", async () => {
    for (const orderBy of ORDERS) {
      // Emily Brontë and Émile Zola's two: a year missing, counts apart, pages of two over three books.
      expect(await walkForward({ orderBy, search: "emi" }, 2)).toEqual(expected({ orderBy, search: "emi" }));
      expect(await walkBackward({ orderBy, search: "emi" }, 2)).toEqual(expected({ orderBy, search: "emi" }));
    }
    const filter = { author: "Lesley Moreno" };
    expect(idsOf(await browse({ search: "amu", filter, first: 10 }))).toEqual(["1"]);
  });

  it.each(["", "   ", "!?"])("takes the blank search %j as no search", async (search) => {
    expect(idsOf(await browse({ search, first: 100 }))).toEqual(expected({}));
    expect((await browse({ search, first: 0 })).totalCount).toBe(SHELF.length);
  });
});

describe("Query.books cursors", () => {
  it("refuses a cursor of another order, filter or search with BAD_USER_INPUT", async () => {
    const byTitle = await browse({ orderBy: { field: "TITLE", direction: "ASC" }, first: 2 });
    const cursor = byTitle.pageInfo.endCursor;
    for (const other of [
      { orderBy: { field: "TITLE", direction: "DESC" } },
      { orderBy: { field: "YEAR", direction: "ASC" } },
      { orderBy: { field: "TITLE", direction: "ASC" }, filter: { author: "Émile Zola" } },
      { orderBy: { field: "TITLE", direction: "ASC" }, search: "jane" },
    ] satisfies Browse[]) {
      const result = await api.execute(BROWSE, { ...other, first: 2, after: cursor });
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argumentName: "after" });
      expect(result.errors?.[0]?.message).toMatch(/another orderBy, filter or search/);
    }
  });

  it.each([
    ["first and last together", { first: 1, last: 1 }, "last"],
    ["a window over 100", { first: 101 }, "first"],
    ["a negative window", { last: -1 }, "last"],
    ["a cursor this API never issued", { first: 1, after: "bm90IGEgY3Vyc29y" }, "after"],
    ["an author of 201 characters", { first: 1, filter: { author: "a".repeat(201) } }, "filter"],
    ["a blank author", { first: 1, filter: { author: "  " } }, "filter"],
    ["yearFrom after yearTo", { first: 1, filter: { yearFrom: 2000, yearTo: 1999 } }, "filter"],
    ["a search of nine words", { first: 1, search: "a b c d e f g h i" }, "search"],
  ])("refuses %s with BAD_USER_INPUT naming the argument", async (_name, variables, argumentName) => {
    const result = await api.execute(BROWSE, variables);
    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argumentName });
  });

  it("refuses an unknown order field as GraphQL validation does", async () => {
    const result = await api.execute(`{ books(orderBy: {field: PRICE, direction: ASC}) { totalCount } }`);
    expect(result.errors?.[0]?.extensions?.["code"]).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  // Last: it changes the catalog the other tests expect.
  it("keeps a cursor valid while books are added and bought", async () => {
    const orderBy = { field: "TITLE", direction: "ASC" } as const;
    const first = await browse({ orderBy, first: 3 });
    const early = await addBook(api, { id: "added-early", title: "A Book Before The Cursor", author: "X" });
    const late = await addBook(api, { id: "added-late", title: "Zzz", author: "X" });
    await recordPurchases(api, idsOf(first)[2]!, ["buyer-during-walk"]);
    await recordPurchases(api, "s-11", ["buyer-during-walk"]);
    const rest = await browse({ orderBy, first: 100, after: first.pageInfo.endCursor });
    stored = await salesCollection(api.db).find({}).toArray();
    expect([...idsOf(first), ...idsOf(rest)]).toEqual(expected({ orderBy }).filter((id) => id !== early));
    expect(idsOf(rest)).toContain(late);
  });
});
