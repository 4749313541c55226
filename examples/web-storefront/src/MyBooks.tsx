import { useQuery } from "@apollo/client/react";
import { useCallback } from "react";
import { ErrorNotice, settle, Skeleton } from "./ErrorNotice";
import { authorHref, bookHref } from "./links";
import { MY_BOOKS } from "./operations";
import { signInHref, useSession } from "./session";
import { Pager } from "./Pager";
import { useWindows } from "./windows";

const BOOKS_PER_WINDOW = 10;

/** The signed-in shopper's own books (`viewer { booksPurchased }`), a window at a time; signed out, the way to sign in. */
export function MyBooks() {
  const session = useSession();
  if (session.state === "unknown") return <Skeleton rows={BOOKS_PER_WINDOW} label="My books: loading" />;
  if (session.state === "signed-out")
    return (
      <>
        <h2>My books</h2>
        <p>
          <a href={signInHref()}>Sign in</a> to see the books you bought.
        </p>
      </>
    );
  return <SignedInBooks customerId={session.customerId} />;
}

function SignedInBooks({ customerId }: { customerId: string }) {
  const windows = useWindows();
  // Always read from the API: a purchase made a moment ago on a book's page must be here.
  const { data, previousData, error, refetch } = useQuery(MY_BOOKS, {
    variables: { first: BOOKS_PER_WINDOW, after: windows.cursor },
    fetchPolicy: "cache-and-network",
  });
  const shownPage = windows.shownPage(data !== undefined);
  const retry = useCallback(() => settle(refetch()), [refetch]);
  const shown = data ?? previousData;
  if (error) return <ErrorNotice error={error} retry={retry} />;
  if (!shown) return <Skeleton rows={BOOKS_PER_WINDOW} label="My books: loading" />;
  const books = shown.viewer?.booksPurchased;
  const first = (shownPage - 1) * BOOKS_PER_WINDOW;
  return (
    <section aria-label="My books">
      <h2>My books</h2>
      <p className="quiet" data-testid="my-books-count">
        Signed in as <strong data-testid="signed-in-as">{customerId}</strong>
        {" · "}
        {!books || books.totalCount === 0
          ? "No books bought yet."
          : `${first + 1}–${first + books.edges.length} of ${books.totalCount.toLocaleString("en")} ${books.totalCount === 1 ? "book" : "books"}`}
      </p>
      <ol className="shelf" data-testid="my-books" start={first + 1}>
        {books?.edges.map(({ node }) => (
          <li key={node.id} data-book-id={node.databaseId}>
            <a className="title" href={bookHref(node.databaseId)}>
              {node.title}
            </a>
            <span className="byline">
              <a href={authorHref(node.author)}>{node.author}</a>
            </span>
          </li>
        ))}
      </ol>
      <Pager windows={windows} next={books?.pageInfo.hasNextPage && data !== undefined ? (books.pageInfo.endCursor ?? null) : undefined} />
    </section>
  );
}
