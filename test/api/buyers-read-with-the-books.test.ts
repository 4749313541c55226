import fc from "fast-check";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { graphql } from "../__generated__";
import type { WindowBothWaysQuery } from "../__generated__/graphql";
import { useTestApi } from "../support/api";
import { addBook, customers, recordPurchases } from "../support/factories";

/**
 * `books` reads each book with only as many embedded buyers as the selected `customersPurchased`
 * windows need, a number `graphql/schema/selection.ts` works out from the selection; `book(id:)` reads the
 * whole book. If the two rules drifted apart, a window read with the books would silently show too
 * few buyers or wrong positions. So any window, read both ways, must come out the same.
 */
const settings = { outlierThreshold: 5, extraSalesPageSize: 4 };
// Fixed, so a failure is reproduced by running the test again; fast-check prints the shrunk window.
const SEED = 20261125;

const WINDOW_BOTH_WAYS = graphql(`
  query WindowBothWays($author: String!, $id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    books(first: 10, filter: { author: $author }) {
      edges {
        node {
          databaseId
          customersPurchased(first: $first, after: $after, last: $last, before: $before) {
            totalCount
            ...BuyerPage
          }
        }
      }
    }
    book(id: $id) {
      customersPurchased(first: $first, after: $after, last: $last, before: $before) {
        totalCount
        ...BuyerPage
      }
    }
  }
`);

const api = useTestApi({ settings });
const books: Record<string, string> = {};
beforeAll(async () => {
  // Bought fewer times than the threshold, exactly to it, and far past it (across several pages).
  for (const [name, purchases] of [
    ["short", 3],
    ["full", 5],
    ["outlier", 17],
  ] as const) {
    books[name] = await addBook(api, { title: name, author: "Drift" });
    await recordPurchases(api, books[name], customers(purchases));
  }
});

const cursor = fc.option(fc.nat({ max: 20 }).map(customerCursor), { nil: undefined });
const windowArgs = fc.oneof(
  fc.record({ first: fc.nat({ max: 20 }), after: cursor }),
  fc.record({ last: fc.nat({ max: 20 }), before: cursor }),
);

function windowOf(data: WindowBothWaysQuery | null | undefined, id: string) {
  return data?.books.edges.find((edge) => edge.node.databaseId === id)?.node.customersPurchased;
}

describe("a window of a book's buyers", () => {
  it.each(["short", "full", "outlier"])("is the same read with the books as read with the %s book alone", async (name) => {
    const id = books[name]!;
    await fc.assert(
      fc.asyncProperty(windowArgs, async (window) => {
        const result = await api.execute(WINDOW_BOTH_WAYS, { author: "Drift", id, ...window });
        expect(result.errors).toBeUndefined();
        expect(windowOf(result.data, id)).toEqual(result.data?.book?.customersPurchased);
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});
