import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { toGlobalId } from "graphql-relay";
import { graphql } from "../__generated__";
import { openTestApi, type TestApi } from "../support/api";
import { bookGlobalId, customerGlobalId } from "../../src/graphql/schema/global-ids";
import { parseBookId } from "../../src/sales/book-ids";
import type { AlsoBoughtQuery, BoughtAcrossListingQuery, PurchaseHistoryQuery } from "../__generated__/graphql";
import { customers, seedBook } from "../support/factories";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

/** Five embedded buyers, then pages of four: repeat purchases land in the array and in several pages. */
const SMALL = { outlierThreshold: 5, extraSalesPageSize: 4 };
const OBJECT_ID = "64b7f0c2a1b2c3d4e5f60718";

const reader = tokenSpec("storefront", ["purchases:read"]);
const writer = tokenSpec("checkout", ["catalog:write"]);

let api: TestApi;
beforeAll(async () => {
  api = await openTestApi({ settings: SMALL, apiTokens: configuredTokens(reader, writer) });
  api = api.withAuthorization(bearer(reader));
  // alice: embedded in "a" and on both of its pages; embedded in 2; only on a page of the ObjectId book.
  await seedBook(api.db, "a", ["alice", "bob", "carol", "dave", "erin", "alice", "frank", "gina", "hank", "ivan", "alice"], SMALL);
  await seedBook(api.db, "2", ["alice", "bob"], SMALL);
  await seedBook(api.db, "c", ["bob", "carol"], SMALL);
  await seedBook(api.db, "f", ["frank"], SMALL);
  await seedBook(api.db, OBJECT_ID, [...customers(6, 0, "z"), "alice"], SMALL);
});
afterAll(() => api.close());
beforeEach(() => api.commands.reset());

async function run<TData, TVariables extends Record<string, unknown>>(
  document: TypedDocumentNode<TData, TVariables>,
  variables: TVariables,
): Promise<TData> {
  const result = await api.execute(document, variables);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!;
}

const HISTORY = graphql(`
  query PurchaseHistory($id: ID!, $first: Int, $after: String) {
    customer(id: $id) {
      id: databaseId
      booksPurchased(first: $first, after: $after) {
        ...BookPage
      }
    }
  }
`);

describe("Customer.booksPurchased", () => {
  it("lists each book the customer bought once, in book id order, from embedded arrays and extra_sales pages", async () => {
    const { customer } = await run(HISTORY, { id: "alice" });
    expect(customer!.booksPurchased.edges.map((edge) => edge.node.id)).toEqual(["2", "a", OBJECT_ID]);
    expect(customer!.booksPurchased.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    // One query per multikey index, side by side, then the books.
    expect(api.commands.names()).toEqual(["find", "aggregate", "find"]);
  });

  it("pages through a history one book at a time with the same books as one window", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const { customer }: PurchaseHistoryQuery = await run(HISTORY, { id: "alice", first: 1, after });
      seen.push(...customer!.booksPurchased.edges.map((edge) => edge.node.id));
      expect(customer!.booksPurchased.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!customer!.booksPurchased.pageInfo.hasNextPage) break;
      after = customer!.booksPurchased.pageInfo.endCursor;
    }
    expect(seen).toEqual(["2", "a", OBJECT_ID]);
  });

  it("counts the customer's distinct books only when asked", async () => {
    const data = await run(
      graphql(`
        query PurchaseHistoryCount {
          customer(id: "alice") {
            booksPurchased(first: 0) {
              totalCount
            }
          }
        }
      `),
      {},
    );
    expect(data.customer!.booksPurchased.totalCount).toBe(3);
  });

  it("gives a customer who bought nothing an empty history", async () => {
    const { customer } = await run(HISTORY, { id: "nobody" });
    expect(customer).toEqual({
      id: "nobody",
      booksPurchased: { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } },
    });
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
  });
});

describe("Book.purchasedBy", () => {
  const LISTING = graphql(`
    query BoughtAcrossListing($customerId: ID!) {
      books(first: 10) {
        edges {
          node {
            id: databaseId
            purchasedBy(customerId: $customerId)
          }
        }
      }
    }
  `);
  const answers = (data: BoughtAcrossListingQuery) => Object.fromEntries(data.books.edges.map(({ node }) => [node.id, node.purchasedBy]));

  it.each([
    ["alice", { "2": true, a: true, c: false, f: false, [OBJECT_ID]: true }],
    ["ivan", { "2": false, a: true, c: false, f: false, [OBJECT_ID]: false }],
    ["nobody", { "2": false, a: false, c: false, f: false, [OBJECT_ID]: false }],
  ])("answers for %p across a page of books with two aggregations in all", async (customerId, expected) => {
    expect(answers(await run(LISTING, { customerId }))).toEqual(expected);
    expect(api.commands.names()).toEqual(["find", "aggregate", "aggregate"]);
  });

  it("answers for several customers in one request with the same two aggregations", async () => {
    const data = await run(
      graphql(`
        query BoughtByTwo {
          book(id: "a") {
            alice: purchasedBy(customerId: "alice")
            ivan: purchasedBy(customerId: "ivan")
            nobody: purchasedBy(customerId: "nobody")
          }
        }
      `),
      {},
    );
    expect(data.book).toEqual({ alice: true, ivan: true, nobody: false });
    expect(api.commands.names()).toEqual(["find", "aggregate", "aggregate"]);
  });

  it("asks only the books when none of them is an outlier", async () => {
    const data = await run(
      graphql(`
        query BoughtOneBook {
          book(id: "c") {
            purchasedBy(customerId: "carol")
          }
        }
      `),
      {},
    );
    expect(data.book!.purchasedBy).toBe(true);
    expect(api.commands.names()).toEqual(["find", "aggregate"]);
  });
});

describe("Book.alsoBought", () => {
  const ALSO_BOUGHT = graphql(`
    query AlsoBought($id: ID!, $first: Int) {
      book(id: $id) {
        alsoBought(first: $first) {
          book {
            id: databaseId
            title
          }
          sharedBuyers
        }
      }
    }
  `);
  const recommendations = (data: AlsoBoughtQuery) => data.book!.alsoBought.map(({ book, sharedBuyers }) => [book.id, sharedBuyers]);

  it("ranks the books the sampled buyers also bought, ties in book id order, never the book itself", async () => {
    const data = await run(ALSO_BOUGHT, { id: "a" });
    // Sample: a's embedded buyers alice, bob, carol, dave, erin. frank bought "f" but only sits on a's extra_sales page.
    expect(recommendations(data)).toEqual([
      ["2", 2],
      ["c", 2],
      [OBJECT_ID, 1],
    ]);
    expect(api.commands.names()).toEqual(["find", "find", "aggregate", "find"]);
  });

  it("stops at first", async () => {
    expect(recommendations(await run(ALSO_BOUGHT, { id: "a", first: 1 }))).toEqual([["2", 2]]);
  });

  it("counts only the sampled buyers, and recommends nothing when none of them bought another book", async () => {
    expect(recommendations(await run(ALSO_BOUGHT, { id: "f" }))).toEqual([["a", 1]]);
    await seedBook(api.db, "lonely", ["solo"], SMALL);
    expect(recommendations(await run(ALSO_BOUGHT, { id: "lonely" }))).toEqual([]);
  });
});

describe("Relay's Global Object Identification", () => {
  const NODE = graphql(`
    query NodeById($id: ID!) {
      node(id: $id) {
        __typename
        id
        ... on Book {
          databaseId
          title
        }
        ... on Customer {
          databaseId
        }
      }
    }
  `);

  it("refetches a book and a customer by their ids, and answers null for ids it never issued", async () => {
    for (const id of ["2", "a", OBJECT_ID]) {
      const { node } = await run(NODE, { id: bookGlobalId(parseBookId(id)) });
      expect(node).toMatchObject({ __typename: "Book", id: bookGlobalId(parseBookId(id)), databaseId: id });
    }
    expect((await run(NODE, { id: customerGlobalId("alice") })).node).toEqual({
      __typename: "Customer",
      id: customerGlobalId("alice"),
      databaseId: "alice",
    });
    for (const id of ["2", "garbage", toGlobalId("Author", "1"), toGlobalId("Book", ""), bookGlobalId("no-such-book")]) {
      expect((await run(NODE, { id })).node).toBeNull();
    }
  });

  const BOOK_BY_EITHER_ID = graphql(`
    query BookByEitherId($id: ID!) {
      book(id: $id) {
        id
        databaseId
        globalId
      }
    }
  `);

  it("takes a book's id or its databaseId wherever a book is named, and keeps globalId as a deprecated alias of id", async () => {
    const byDatabaseId = (await run(BOOK_BY_EITHER_ID, { id: "2" })).book;
    const byId = (await run(BOOK_BY_EITHER_ID, { id: byDatabaseId!.id })).book;

    expect(byDatabaseId).toEqual({ id: bookGlobalId(2), databaseId: "2", globalId: bookGlobalId(2) });
    expect(byId).toEqual(byDatabaseId);
    expect((await run(NODE, { id: byDatabaseId!.id })).node).toMatchObject({ __typename: "Book", databaseId: "2" });
  });

  it("reads a stored id that only looks like a global id as a stored id", async () => {
    // Decodes to "Author:1": a global id of no type this API issues, so the book named by it is the book stored under it.
    await seedBook(api.db, toGlobalId("Author", "1"), ["alice"], SMALL);

    expect((await run(BOOK_BY_EITHER_ID, { id: toGlobalId("Author", "1") })).book?.databaseId).toBe(toGlobalId("Author", "1"));
  });

  it("reads every book among nodes with one query, in the order given", async () => {
    const ids = [bookGlobalId("a"), "garbage", customerGlobalId("bob"), bookGlobalId(2), bookGlobalId("missing")];
    const { nodes } = await run(
      graphql(`
        query NodesByIds($ids: [ID!]!) {
          nodes(ids: $ids) {
            ... on Book {
              databaseId
            }
            ... on Customer {
              databaseId
            }
          }
        }
      `),
      { ids },
    );
    expect(nodes).toEqual([{ databaseId: "a" }, null, { databaseId: "bob" }, { databaseId: "2" }, null]);
    expect(api.commands.names()).toEqual(["find"]);
  });

  it("refuses more than 100 ids before reading anything", async () => {
    const result = await api.execute(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: Array.from({ length: 101 }, (_, index) => bookGlobalId(index)),
    });
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argumentName: "ids" });
    expect(api.commands.names()).toEqual([]);
  });
});

describe("privacy", () => {
  it.each([
    ["purchase history", `{ customer(id: "alice") { booksPurchased { edges { node { id: databaseId } } } } }`],
    ["whether a customer bought a book", `{ book(id: "a") { purchasedBy(customerId: "alice") } }`],
    ["what a book's buyers also bought", `{ book(id: "a") { alsoBought { sharedBuyers } } }`],
    ["a book's newest buyers", `{ book(id: "a") { customersPurchased(last: 2) { edges { node { id: databaseId } } } } }`],
  ])("needs purchases:read for %s, and reads nothing about purchases without it", async (_what, query) => {
    for (const [authorization, code] of [
      [bearer(writer), "FORBIDDEN"],
      [undefined, "UNAUTHENTICATED"],
    ] as const) {
      api.commands.reset();
      const result = await api.withAuthorization(authorization).execute(query);
      expect(result.errors?.[0]?.extensions?.code).toBe(code);
      expect(api.commands.names().every((name) => name === "find")).toBe(true);
      expect(api.commands.names().length).toBeLessThanOrEqual(1);
    }
  });
});
