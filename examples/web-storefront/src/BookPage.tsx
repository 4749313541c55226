import { useMutation, useQuery, useSubscription } from "@apollo/client/react";
import { useCallback, useState } from "react";
import { ErrorNotice, settle, Skeleton } from "./ErrorNotice";
import { NO_SUCH_BOOK } from "./errors";
import { authorHref, backOfficeHref, bookHref } from "./links";
import { BOOK_PAGE, BUY, SHELF_SALES } from "./operations";
import { signInHref, useSession } from "./session";

/**
 * A book, the same for every visitor: its count first, live (each purchase, wherever it is made, shows here as it
 * happens), "Buy" for the signed-in shopper, and what its buyers also bought. No customer's id is shown: who bought
 * it is the back office's page.
 */
export function BookPage({ id }: { id: string }) {
  const { data, error, refetch } = useQuery(BOOK_PAGE, { variables: { id } });
  const retry = useCallback(() => settle(refetch()), [refetch]);
  // The count follows each purchase over the WebSocket: the cache updates the book by its id.
  const bookId = data?.book?.id;
  useSubscription(SHELF_SALES, { variables: { ids: bookId ? [bookId] : [] }, skip: bookId === undefined });
  if (error) return <ErrorNotice error={error} retry={retry} />;
  if (!data) return <Skeleton rows={5} label="The book: loading" />;
  const { book } = data;
  if (!book) return <ErrorNotice described={NO_SUCH_BOOK} />;
  return (
    <article className="book">
      <header>
        <h2 data-testid="title">{book.title}</h2>
        <p className="byline">
          by <a href={authorHref(book.author)}>{book.author}</a>
          {book.year != null && <> · {book.year}</>}
        </p>
        <p className="count">
          <strong data-testid="purchase-count">{book.purchaseCount.toLocaleString("en")}</strong> sold
        </p>
        <BuyButton bookId={book.id} onBought={retry} />
      </header>
      <section>
        <h3>Customers also bought</h3>
        {book.alsoBought.length === 0 ? (
          <p className="quiet">Nothing yet.</p>
        ) : (
          <ul className="also" data-testid="also-bought">
            {book.alsoBought.map(({ book: other, sharedBuyers }) => (
              <li key={other.id}>
                <a href={bookHref(other.databaseId)}>{other.title}</a> <span className="quiet">by {other.author}</span>{" "}
                <span className="quiet">({sharedBuyers} shared)</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <p className="quiet">
        <a href={backOfficeHref(book.databaseId)}>Buyers (back office)</a>
      </p>
    </article>
  );
}

/**
 * Buy, as the signed-in shopper: the API records the purchase as theirs, from their token; there is no customer to
 * choose. One click is one order line with its own purchaseId; "Send again" resends that line, as a client does after
 * a timeout, and the API answers it as a replay. Signed out, it leads to the sign-in and back.
 */
function BuyButton({ bookId, onBought }: { bookId: string; onBought: () => void }) {
  const session = useSession();
  const [purchaseId, setPurchaseId] = useState<string | null>(null);
  const [buy, { data, error, loading }] = useMutation(BUY);
  if (session.state !== "signed-in")
    return (
      <div className="buy">
        <a className="button primary" href={signInHref()} aria-disabled={session.state === "unknown"}>
          Sign in to buy
        </a>
      </div>
    );
  const send = (line: string) => {
    setPurchaseId(line);
    // A failure shows in `error` below; an abort (the page was left meanwhile) needs nothing.
    settle(buy({ variables: { bookId, purchaseId: line } }).then(onBought));
  };
  const outcome = data?.recordPurchase;
  return (
    <div className="buy">
      <button className="primary" disabled={loading} onClick={() => send(crypto.randomUUID())}>
        Buy
      </button>
      <button disabled={loading || purchaseId === null} onClick={() => purchaseId && send(purchaseId)}>
        Send again
      </button>
      {error && <ErrorNotice error={error} />}
      {outcome && (
        <p className="quiet" data-testid="purchase-outcome">
          {outcome.replayed ? "Already bought: this order was recorded before." : "Bought. Thank you!"}
        </p>
      )}
    </div>
  );
}
