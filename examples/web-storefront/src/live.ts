import { useSubscription } from "@apollo/client/react";
import type { StorefrontBookBuyersSubscription, StorefrontBookPageQuery, StorefrontBookPageQueryVariables } from "./__generated__/graphql";
import { BOOK_BUYERS_LIVE, BOOK_PAGE } from "./operations";

type NewBuyer = StorefrontBookBuyersSubscription["newBuyers"];
type Page = NonNullable<StorefrontBookPageQuery["book"]>;

/**
 * Keeps the book page current while it is open: each buyer the API announces, through any of its processes, goes
 * into the page's cached answer, with the count it brought, so the page changes without asking the API again. A
 * subscriber that fell behind is told how many it missed, and the page is then read again whole.
 */
export function useLiveBuyers(variables: StorefrontBookPageQueryVariables, readAgain: () => void): void {
  useSubscription(BOOK_BUYERS_LIVE, {
    variables: { bookId: variables.id },
    onData: ({ client, data }) => {
      const event = data.data?.newBuyers;
      if (!event) return;
      if (event.missedBefore > 0) return readAgain();
      client.cache.updateQuery({ query: BOOK_PAGE, variables }, (answer) =>
        answer?.book ? { ...answer, book: withBuyer(answer.book, event, variables.before == null, variables.buyers) } : answer,
      );
    },
  });
}

/**
 * The page with one more buyer: counts only grow, so an announcement older than what the page holds (it read the
 * page again meanwhile) changes nothing; the newest window takes the buyer unless it already shows it, dropping its
 * oldest, and an older window keeps its buyers but shows the new total.
 */
function withBuyer(book: Page, event: NewBuyer, newestWindow: boolean, size: number): Page {
  const window = book.customersPurchased;
  const count = Math.max(book.purchaseCount, event.purchaseCount);
  const shown = window.edges.some(({ cursor }) => cursor === event.edge.cursor);
  // `last:` windows list the oldest first; the page shows them newest first.
  const added = newestWindow && !shown;
  const edges = added ? [...window.edges, event.edge].slice(-size) : window.edges;
  return {
    ...book,
    purchaseCount: count,
    customersPurchased: {
      ...window,
      totalCount: Math.max(window.totalCount, count),
      edges,
      pageInfo: {
        ...window.pageInfo,
        // The window's oldest buyer, pushed out, is now the first of the older window.
        hasPreviousPage: window.pageInfo.hasPreviousPage || (added && window.edges.length >= size),
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    },
  };
}
