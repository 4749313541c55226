import { useQuery } from "@apollo/client/react";
import { useCallback } from "react";
import { ErrorNotice, settle, Skeleton } from "../ErrorNotice";
import { describeError, NO_SUCH_BOOK, type ShopperError } from "../errors";
import { bookHref } from "../links";
import { Pager } from "../Pager";
import { useWindows } from "../windows";
import { BOOK_BUYERS } from "./operations";

const BUYERS_PER_WINDOW = 10;

/**
 * The back office's view of a book: its buyers by customer id, newest first, a window at a time. Only a caller whose
 * own token has `purchases:read` sees it; a shopper, or a visitor not signed in, is shown the API's refusal.
 */
export function BuyersPage({ id }: { id: string }) {
  const buyers = useWindows();
  const { data, previousData, error, refetch } = useQuery(BOOK_BUYERS, {
    variables: { id, buyers: BUYERS_PER_WINDOW, before: buyers.cursor },
  });
  const shownPage = buyers.shownPage(data !== undefined);
  const retry = useCallback(() => settle(refetch()), [refetch]);
  const shown = data ?? previousData;
  if (error) {
    const described = backOfficeError(error);
    // A refusal stays a refusal: only an API away is asked again.
    return <ErrorNotice error={error} described={described} retry={described.code === "NETWORK" ? retry : undefined} />;
  }
  if (!shown) return <Skeleton rows={BUYERS_PER_WINDOW} label="The buyers: loading" />;
  const { book } = shown;
  if (!book) return <ErrorNotice described={NO_SUCH_BOOK} />;
  const window = book.customersPurchased;
  // Numbered from the newest buyer, across windows: the second window starts at 11.
  const newest = (shownPage - 1) * BUYERS_PER_WINDOW;
  return (
    <article className="book">
      <h2>
        Buyers of <a href={bookHref(book.databaseId)}>{book.title}</a>
      </h2>
      <p className="quiet">
        <span data-testid="purchase-count">{book.purchaseCount.toLocaleString("en")}</span> sold ·{" "}
        <span data-testid="buyer-total">{window.totalCount.toLocaleString("en")}</span> buyers in all
      </p>
      <ol className="buyers" data-testid="buyers" start={newest + 1}>
        {[...window.edges].reverse().map(({ cursor, node }, index) => (
          <li key={cursor} value={newest + index + 1}>
            {node.databaseId}
          </li>
        ))}
      </ol>
      <Pager
        windows={buyers}
        next={window.pageInfo.hasPreviousPage && data !== undefined ? (window.pageInfo.startCursor ?? null) : undefined}
        labels={["← Newer", "Older →"]}
      />
    </article>
  );
}

// The refusals in the back office's words: who may see buyers, and how to get there.
const BACK_OFFICE: Record<string, string> = {
  UNAUTHENTICATED: "The back office is for staff: sign in with an account that may read buyers (purchases:read).",
  FORBIDDEN: "You are signed in, but buyers are personal data: only the back office's staff (purchases:read) may see them.",
};

function backOfficeError(error: unknown): ShopperError {
  const described = describeError(error);
  const message = BACK_OFFICE[described.code];
  return message ? { ...described, message } : described;
}
