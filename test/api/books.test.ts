import { graphql } from "../__generated__";
import type { BooksWindowQuery } from "../__generated__/graphql";
import { useTestApi } from "../support/api";
import { addBook, customers, idOrderCursor, seedBook } from "../support/factories";
import * as cursors from "../../src/graphql/schema/cursors";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { salesCollection } from "../../src/sales/documents";

// Cursors made are counted through a spy that calls the real function. jest.spyOn cannot wrap a module's export in place
// (swc, which compiles the tests, makes each export a getter as ES modules have it), so the module is the real one with
// that one function wrapped.
jest.mock("../../src/graphql/schema/cursors", () => {
  const actual = jest.requireActual<typeof cursors>("../../src/graphql/schema/cursors");
  return { __esModule: true, ...actual, catalogCursor: jest.fn(actual.catalogCursor) };
});

const asEdge = (id: string) => ({ node: { id } });

const api = useTestApi();
beforeAll(async () => {
  for (const id of ["65f1a2b3c4d5e6f708192a3b", "b-string", "10", "2", "a-string", "65f1a2b3c4d5e6f708192a3a"]) await addBook(api, { id });
});

const BOOKS = graphql(`
  query BooksWindow($first: Int, $after: String) {
    books(first: $first, after: $after) {
      totalCount
      ...BookPage
    }
  }
`);

describe("Query.books", () => {
  it("orders books by id: integers, then strings, then ObjectIds", async () => {
    const result = await api.execute(BOOKS, { first: 10 });
    expect(result.data?.books.edges.map((edge) => edge.node.id)).toEqual([
      "2",
      "10",
      "a-string",
      "b-string",
      "65f1a2b3c4d5e6f708192a3a",
      "65f1a2b3c4d5e6f708192a3b",
    ]);
    expect(result.data?.books.totalCount).toBe(6);
  });

  it("pages across id types with one book per window", async () => {
    const ids: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const result: { data?: BooksWindowQuery | null } = await api.execute(BOOKS, { first: 1, after });
      ids.push(...result.data!.books.edges.map((edge) => edge.node.id));
      if (!result.data!.books.pageInfo.hasNextPage) break;
      after = result.data!.books.pageInfo.endCursor;
    }
    expect(ids).toEqual(["2", "10", "a-string", "b-string", "65f1a2b3c4d5e6f708192a3a", "65f1a2b3c4d5e6f708192a3b"]);
  });

  it("marks later windows as having a previous one", async () => {
    const first = await api.execute(BOOKS, { first: 2 });
    expect(first.data?.books.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await api.execute(BOOKS, { first: 2, after: first.data?.books.pageInfo.endCursor });
    expect(second.data?.books.pageInfo).toMatchObject({ hasPreviousPage: true });
  });

  it("does not count the catalog unless totalCount is asked for", async () => {
    api.commands.reset();
    await api.execute(`{ books(first: 5) { edges { node { id: databaseId title } } } }`);
    expect(api.commands.names()).toEqual(["find"]);
  });

  it("counts the catalog from the collection's metadata, not document by document", async () => {
    api.commands.reset();
    const result = await api.execute(`{ books(first: 0) { totalCount } }`);
    expect(result.data).toEqual({ books: { totalCount: 6 } });
    expect(api.commands.names()).toEqual(["find", "count"]);
  });

  it("fetches no embedded buyers for a window that shows none", async () => {
    await seedBook(api.db, "3", customers(20));
    api.commands.reset();
    await api.execute(
      `query ($after: String) { books(first: 1, after: $after) { edges { node { id: databaseId title purchaseCount } } } }`,
      {
        after: idOrderCursor(2),
      },
    );
    const [books] = api.commands.received();
    expect(books?.[0]).toEqual({
      _id: 3,
      title: "Seeded 3",
      author: "A",
      customers_purchased: [],
      has_extras: false,
      purchase_count: 20,
      extra_page_size: 1000,
    });
    expect(books?.map((book) => book.customers_purchased)).toEqual([[], []]);
  });

  it("fetches the embedded buyers up to one past the widest window selected, through aliases and fragments", async () => {
    await seedBook(api.db, "4", customers(30));
    api.commands.reset();
    const result = await api.execute(
      `query ($after: String, $buyersAfter: String) { books(first: 1, after: $after) { edges { node {
         ...Buyers wide: customersPurchased(first: 5, after: $buyersAfter) { edges { node { id: databaseId } } } } } } }
       fragment Buyers on Book { customersPurchased(first: 2) { edges { node { id: databaseId } } } }`,
      { after: idOrderCursor(3), buyersAfter: customerCursor(2) },
    );
    expect(result.data?.books).toEqual({
      edges: [{ node: { customersPurchased: { edges: customers(2).map(asEdge) }, wide: { edges: customers(5, 3).map(asEdge) } } }],
    });
    expect(api.commands.received()[0]?.[0]?.customers_purchased).toEqual(customers(9));
  });

  it("makes a book's cursor only for an edge that selects it, and for pageInfo's two ends", async () => {
    const made = jest.mocked(cursors.catalogCursor);
    made.mockClear();
    await api.execute(`{ books(first: 5) { edges { node { id } } } }`);
    expect(made).not.toHaveBeenCalled();
    const ends = await api.execute(`{ books(first: 5) { pageInfo { startCursor endCursor } } }`);
    expect(made).toHaveBeenCalledTimes(2);
    made.mockClear();
    const edges = await api.execute(`{ books(first: 5) { edges { cursor } } }`);
    expect(made).toHaveBeenCalledTimes(5);
    const cursorsOf = (edges.data as { books: { edges: { cursor: string }[] } }).books.edges.map(({ cursor }) => cursor);
    expect(ends.data).toEqual({ books: { pageInfo: { startCursor: cursorsOf[0], endCursor: cursorsOf[4] } } });
  });

  it("batches several book(id:) lookups into one query", async () => {
    api.commands.reset();
    const result = await api.execute(
      `{ a: book(id: "2") { id: databaseId } b: book(id: "a-string") { id: databaseId } c: book(id: "missing") { id: databaseId } }`,
    );
    expect(result.data).toEqual({ a: { id: "2" }, b: { id: "a-string" }, c: null });
    expect(api.commands.names()).toEqual(["find"]);
  });
});

describe("Query.book", () => {
  it("returns null for an unknown id", async () => {
    const result = await api.execute(`{ book(id: "nobody-wrote-this") { id: databaseId } }`);
    expect(result).toEqual({ data: { book: null } });
  });

  it("reads one book by an equality on _id for one document, which mongod answers by its _id fast path", async () => {
    api.commands.reset();
    const result = await api.execute(`{ book(id: "a-string") { id: databaseId } }`);
    expect(result.data).toEqual({ book: { id: "a-string" } });
    expect(api.monitor.log().map(({ command }) => [command["filter"], command["limit"]])).toEqual([[{ _id: "a-string" }, 1]]);
    const explained = await api.db.command({
      explain: { find: "sales", filter: { _id: "a-string" }, limit: 1 },
      verbosity: "executionStats",
    });
    expect(explained["executionStats"]).toMatchObject({ nReturned: 1, totalKeysExamined: 1, totalDocsExamined: 1 });
  });

  it("reports the stored purchase count and the outlier flag", async () => {
    await seedBook(api.db, "popular", customers(60));
    const result = await api.execute(`{ book(id: "popular") { purchaseCount hasExtras } }`);
    expect(result.data).toEqual({ book: { purchaseCount: 60, hasExtras: true } });
  });

  // Issue 35: `_entities` of 1,000 books spent most of its CPU in the API deserializing them, search words and all.
  it("reads books by id without their search words, alone or batched", async () => {
    const [first, second] = [await addBook(api, { title: "Gardens of the Moon" }), await addBook(api, { title: "Deadhouse Gates" })];
    // Stored with them, for the search's index.
    const stored = await salesCollection(api.db)
      .find({ title: { $in: ["Gardens of the Moon", "Deadhouse Gates"] } })
      .toArray();
    expect(stored.map((book) => (book.search_words?.length ?? 0) > 0)).toEqual([true, true]);

    for (const query of [
      `{ a: book(id: "${first}") { title } }`,
      `{ a: book(id: "${first}") { title } b: book(id: "${second}") { title } }`,
    ]) {
      api.commands.reset();
      const result = await api.execute(query);
      expect(result.errors).toBeUndefined();
      const read = api.commands.received().flat();
      expect({
        query,
        titles: read.map((book) => book["title"]),
        withSearchWords: read.filter((book) => "search_words" in book).length,
      }).toEqual({
        query,
        titles: expect.arrayContaining(["Gardens of the Moon"]),
        withSearchWords: 0,
      });
    }
  });

  // Issue 35: the embedded buyers (up to 50 ids) were most of what `_entities` of 1,000 books read and deserialized.
  it("reads books by id without their embedded buyers when no field of the operation reads them, with them in the same one read when one does", async () => {
    await seedBook(api.db, "with-buyers", customers(3, 0, "embedded"));
    const buyers = `customersPurchased(first: 2) { edges { node { id } } }`;
    const representation = `[{ __typename: "Book", databaseId: "with-buyers" }]`;
    for (const [query, readsBuyers] of [
      [`{ book(id: "with-buyers") { title } }`, false],
      [`{ _entities(representations: ${representation}) { ... on Book { title } } }`, false],
      [`{ nodes(ids: ["${Buffer.from("Book:with-buyers").toString("base64")}"]) { id } }`, false],
      [`{ book(id: "with-buyers") { title ${buyers} } }`, true],
      [`{ _entities(representations: ${representation}) { ... on Book { title } } a: book(id: "with-buyers") { ${buyers} } }`, true],
    ] as const) {
      api.commands.reset();
      const result = await api.execute(query);
      expect(result.errors).toBeUndefined();
      const read = api.commands.received();
      expect({
        query,
        commands: read.length,
        withBuyers: read.flat().filter((book) => "customers_purchased" in book).length,
      }).toEqual({ query, commands: 1, withBuyers: readsBuyers ? 1 : 0 });
    }
  });
});
