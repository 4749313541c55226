import { useQuery, useSubscription } from "@apollo/client/react";
import { useCallback } from "react";
import type { BookFilter, BookOrder } from "./__generated__/graphql";
import { ErrorNotice, settle, Skeleton } from "./ErrorNotice";
import { bookHref, authorHref } from "./links";
import { SHELF, SHELF_SALES } from "./operations";
import { Pager } from "./Pager";
import { useWindows } from "./windows";

const BOOKS_PER_WINDOW = 10;
const BESTSELLERS: BookOrder = { field: "PURCHASE_COUNT", direction: "DESC" };

/** A window of books in bestseller order, searched or filtered, with "Previous" and "Next" between windows; its counts live. */
export function Shelf({ search, filter, label }: { search?: string; filter?: BookFilter; label: string }) {
  const windows = useWindows();
  const variables = { first: BOOKS_PER_WINDOW, after: windows.cursor, orderBy: BESTSELLERS, filter, search };
  // The previous window's books stay on screen until the next arrive, so paging does not flash an empty list; their
  // numbers and label stay those of the window shown, not of the one on its way.
  const { data, previousData, error, refetch } = useQuery(SHELF, { variables });
  const shownPage = windows.shownPage(data !== undefined);
  const retry = useCallback(() => settle(refetch()), [refetch]);
  const shown = data ?? previousData;
  // The window's counts follow each purchase as it happens; its order stays the one read, until the shopper pages.
  const ids = shown?.books.edges.map(({ node }) => node.id) ?? [];
  useSubscription(SHELF_SALES, { variables: { ids }, skip: ids.length === 0 });
  if (error) return <ErrorNotice error={error} retry={retry} />;
  if (!shown) return <Skeleton rows={BOOKS_PER_WINDOW} label={`${label}: loading`} />;
  const { edges, pageInfo, totalCount } = shown.books;
  const first = (shownPage - 1) * BOOKS_PER_WINDOW;
  return (
    <section aria-label={label} aria-busy={data === undefined}>
      <p className="quiet" data-testid="shelf-count">
        {totalCount === 0
          ? "No books found."
          : `${first + 1}–${first + edges.length} of ${countLabel(totalCount, search !== undefined || filter !== undefined)}`}
      </p>
      <ol className="shelf" data-testid="shelf" start={first + 1}>
        {edges.map(({ node }, index) => (
          <li key={node.id} data-book-id={node.databaseId}>
            {/* The rank is written out: a grid row (desktop) shows no list marker. */}
            <span className="rank" data-testid="rank">
              {first + index + 1}.
            </span>
            <a className="title" href={bookHref(node.databaseId)}>
              {node.title}
            </a>
            <span className="byline">
              <a href={authorHref(node.author)}>{node.author}</a>
              {node.year != null && <> · {node.year}</>}
            </span>
            <span className="sold">{node.purchaseCount.toLocaleString("en")} sold</span>
          </li>
        ))}
      </ol>
      <Pager windows={windows} next={pageInfo.hasNextPage && data !== undefined ? (pageInfo.endCursor ?? null) : undefined} />
    </section>
  );
}

/** totalCount counts filtered and searched lists up to 1,000 (see the schema): there, 1,000 means "1,000 or more". */
function countLabel(totalCount: number, capped: boolean): string {
  if (capped && totalCount >= 1000) return "1,000+ books";
  return `${totalCount.toLocaleString("en")} ${totalCount === 1 ? "book" : "books"}`;
}
