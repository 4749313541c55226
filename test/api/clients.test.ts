import { createHash } from "node:crypto";
import { ApolloClient, gql, HttpLink, InMemoryCache, type TypePolicies } from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { relayStylePagination } from "@apollo/client/utilities";
import { cacheExchange, Client, fetchExchange } from "@urql/core";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

/**
 * The API as three GraphQL clients use it out of the box, over HTTP: urql (queries by GET, with no
 * header that forces a CORS preflight), Apollo Client (JSON POSTs; GETs with persisted-query hashes
 * when asked) and Relay (whose network layer is the application's: a JSON POST, as Relay's docs write it).
 */
const checkout = tokenSpec("checkout", ["catalog:write", "purchases:read"]);

const LISTING = `query Shelf($first: Int!) { books(first: $first) { totalCount edges { node { id: databaseId title purchaseCount } } } }`;
const RECORD = `mutation Buy($input: RecordPurchaseInput!) { recordPurchase(input: $input) { book { id: databaseId purchaseCount } } }`;

interface Shelf {
  books: { totalCount: number; edges: { node: { id: string; title: string; purchaseCount: number } }[] };
}

/** Every request a client sent: its method and header names, as a browser would send them. */
interface SentRequest {
  method: string;
  headers: string[];
}

let database: TestDatabase;
let server: RunningServer;
let sent: SentRequest[];
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db, {
    apiTokens: configuredTokens(checkout),
    cache: { catalogMaxAgeSeconds: 600, responseCacheUrl: undefined },
  });
  for (const id of ["1", "2"]) await seedBook(database.db, id, customers(3));
  await seedBook(database.db, "3", customers(300, 0, "long"));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});
beforeEach(() => void (sent = []));

/** The global fetch, recording what each client sends. */
const recordingFetch: typeof fetch = (input, init) => {
  const request = new Request(input, init);
  sent.push({ method: request.method, headers: [...request.headers.keys()] });
  return fetch(request);
};

const titles = (shelf: Shelf | null | undefined) => shelf?.books.edges.map((edge) => edge.node.title);

describe("urql 6 with its default exchanges", () => {
  const client = () => new Client({ url: server.url, exchanges: [cacheExchange, fetchExchange], fetch: recordingFetch });

  it("reads the listing by GET with only CORS-safelisted headers, so a browser sends no preflight", async () => {
    const result = await client().query<Shelf>(LISTING, { first: 2 }).toPromise();

    expect(result.error).toBeUndefined();
    expect(titles(result.data)).toEqual(["Seeded 1", "Seeded 2"]);
    expect(sent).toEqual([{ method: "GET", headers: ["accept"] }]);
  });

  it("records a purchase by POST with its bearer token", async () => {
    const result = await client()
      .mutation(RECORD, { input: { bookId: "2", customerId: "urql" } }, { fetchOptions: { headers: { authorization: bearer(checkout) } } })
      .toPromise();

    expect(result.error).toBeUndefined();
    expect(result.data).toEqual({
      recordPurchase: { book: { id: "2", purchaseCount: 4, __typename: "Book" }, __typename: "RecordPurchasePayload" },
    });
    expect(sent.map((request) => request.method)).toEqual(["POST"]);
  });
});

describe("Apollo Client 4 with an HttpLink", () => {
  const client = (link = new HttpLink({ uri: server.url, fetch: recordingFetch, headers: { authorization: bearer(checkout) } })) =>
    new ApolloClient({ link, cache: new InMemoryCache() });

  it("reads the listing by a JSON POST", async () => {
    const { data } = await client().query<Shelf>({ query: gql(LISTING), variables: { first: 2 } });

    expect(titles(data)).toEqual(["Seeded 1", "Seeded 2"]);
    expect(sent.map((request) => request.method)).toEqual(["POST"]);
  });

  it("updates the book in its normalized cache from recordPurchase's payload, without refetching the listing", async () => {
    const apollo = client();
    const { data } = await apollo.query<Shelf>({ query: gql(LISTING), variables: { first: 1 } });
    const before = data!.books.edges[0]!.node.purchaseCount;

    await apollo.mutate({ mutation: gql(RECORD), variables: { input: { bookId: "1", customerId: "apollo" } } });
    const listing = apollo.readQuery<Shelf>({ query: gql(LISTING), variables: { first: 1 } });

    expect(listing?.books.edges[0]?.node.purchaseCount).toBe(before + 1);
    expect(sent.map((request) => request.method)).toEqual(["POST", "POST"]);
  });

  it("sends a registered query by its hash in a GET with useGETForHashedQueries", async () => {
    const sha256 = (query: string) => createHash("sha256").update(query).digest("hex");
    const persisted = new PersistedQueryLink({ sha256, useGETForHashedQueries: true });
    const link = persisted.concat(new HttpLink({ uri: server.url, fetch: recordingFetch }));

    const { data } = await client(link).query<Shelf>({ query: gql(LISTING), variables: { first: 1 } });

    expect(titles(data)).toEqual(["Seeded 1"]);
    // The hash alone first (unknown to the server, which says so), then the query with its hash, to register it.
    expect(sent.map((request) => request.method)).toEqual(["GET", "POST"]);
    sent = [];
    const again = await client(link).query<Shelf>({ query: gql(LISTING), variables: { first: 2 } });
    expect(titles(again.data)).toEqual(["Seeded 1", "Seeded 2"]);
    expect(sent.map((request) => request.method)).toEqual(["GET"]);
  });
});

describe("Relay's network layer as its docs write it", () => {
  async function fetchQuery(operation: { text: string }, variables: Record<string, unknown>) {
    const response = await recordingFetch(server.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: operation.text, variables }),
    });
    return response.json() as Promise<{ data?: Shelf }>;
  }

  it("reads the listing by a JSON POST", async () => {
    const { data } = await fetchQuery({ text: LISTING }, { first: 2 });

    expect(titles(data)).toEqual(["Seeded 1", "Seeded 2"]);
    expect(sent).toEqual([{ method: "POST", headers: ["content-type"] }]);
  });
});

describe("paging a long list with Apollo Client, as docs/api/clients.md advises", () => {
  const BUYERS = gql(`query Buyers($after: String) {
    book(id: "3") { id customersPurchased(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }
  }`);
  interface Buyers {
    book: { customersPurchased: { edges: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string } } };
  }

  /** Pages through all 300 buyers in windows of 10 and counts the buyers the client's cache then holds for the book. */
  async function buyersCachedAfterPaging(typePolicies: TypePolicies): Promise<number> {
    const cache = new InMemoryCache({ typePolicies });
    const apollo = new ApolloClient({ link: new HttpLink({ uri: server.url, headers: { authorization: bearer(checkout) } }), cache });
    let after: string | undefined;
    for (let window = 0; window < 30; window += 1) {
      const { data } = await apollo.query<Buyers>({ query: BUYERS, variables: { after }, fetchPolicy: "network-only" });
      after = data!.book.customersPurchased.pageInfo.endCursor;
    }
    const book = (cache.extract() as Record<string, Record<string, unknown>>)["Book:" + (await bookId(apollo))]!;
    return Object.entries(book)
      .filter(([field]) => field.startsWith("customersPurchased"))
      .reduce((sum, [, connection]) => sum + (connection as { edges: unknown[] }).edges.length, 0);
  }
  const bookId = async (apollo: ApolloClient) =>
    (await apollo.query<{ book: { id: string } }>({ query: gql(`{ book(id: "3") { id } }`) })).data!.book.id;

  it("keeps one window with keyArgs: false and a merge that replaces, where relayStylePagination keeps every buyer", async () => {
    const oneWindow = await buyersCachedAfterPaging({
      Book: { fields: { customersPurchased: { keyArgs: false, merge: (_existing: unknown, incoming: unknown) => incoming } } },
    });
    const merged = await buyersCachedAfterPaging({ Book: { fields: { customersPurchased: relayStylePagination() } } });
    expect([oneWindow, merged]).toEqual([10, 300]);
  });

  /** The first buyer of each of three windows read one after another, each after the last one's endCursor. */
  async function threeWindows(typePolicies: TypePolicies, fetchPolicy: "cache-first" | "network-only"): Promise<string[]> {
    const apollo = new ApolloClient({
      link: new HttpLink({ uri: server.url, headers: { authorization: bearer(checkout) } }),
      cache: new InMemoryCache({ typePolicies }),
    });
    const firsts: string[] = [];
    let after: string | undefined;
    for (let window = 0; window < 3; window += 1) {
      const { data } = await apollo.query<Buyers>({ query: BUYERS, variables: { after }, fetchPolicy });
      const { edges, pageInfo } = data!.book.customersPurchased;
      firsts.push((edges[0] as { node: { id: string } }).node.id);
      after = pageInfo.endCursor;
    }
    return firsts;
  }

  it("reads each window of a keyArgs: false field with network-only: cache-first, the default, shows the first window every time", async () => {
    const oneWindow: TypePolicies = {
      Book: { fields: { customersPurchased: { keyArgs: false, merge: (_existing: unknown, incoming: unknown) => incoming } } },
    };
    const cacheFirst = await threeWindows(oneWindow, "cache-first");
    const networkOnly = await threeWindows(oneWindow, "network-only");
    const noPolicy = await threeWindows({}, "cache-first");
    expect(new Set(cacheFirst).size).toBe(1);
    expect([new Set(networkOnly).size, noPolicy]).toEqual([3, networkOnly]);
  });
});
