import { useMutation, useQuery } from "@apollo/client/react";
import { useCallback, useRef, useState } from "react";
import { ErrorNotice, settle, Skeleton } from "./ErrorNotice";
import { NO_SUCH_BOOK } from "./errors";
import { authorHref, bookHref } from "./links";
import { useLiveBuyers } from "./live";
import { BOOK_PAGE, BUY } from "./operations";
import { useWindows } from "./windows";

const BUYERS_PER_WINDOW = 10;

/**
 * A book: its count first, live (each purchase, wherever it is made, shows here as it happens), "Buy", what its buyers also bought, and its recent buyers a window at a time. This page is
 * the shop floor's, for staff: it records a sale for a customer by id and lists the book's buyers by id, which a
 * page for shoppers must not show (docs/examples.md).
 */
export function BookPage({ id }: { id: string }) {
  const buyers = useWindows();
  const variables = { id, buyers: BUYERS_PER_WINDOW, before: buyers.cursor };
  const { data, previousData, error, refetch } = useQuery(BOOK_PAGE, { variables });
  const shownWindow = useRef(buyers.page);
  if (data) shownWindow.current = buyers.page;
  const retry = useCallback(() => settle(refetch()), [refetch]);
  useLiveBuyers(variables, retry);
  const shown = data ?? previousData;
  if (error) return <ErrorNotice error={error} retry={retry} />;
  if (!shown) return <Skeleton rows={BUYERS_PER_WINDOW} label="The book: loading" />;
  const { book } = shown;
  if (!book) return <ErrorNotice described={NO_SUCH_BOOK} />;
  const window = book.customersPurchased;
  // Numbered from the newest buyer, across windows: the second window starts at 11.
  const newest = (shownWindow.current - 1) * BUYERS_PER_WINDOW;
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
        {/* After a purchase the whole page is read again, so the count and the buyers come from one answer. */}
        <BuyButton bookId={book.id} onBought={() => settle(refetch({ ...variables, before: null }).then(buyers.reset))} />
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
      <section>
        <h3>
          Recent buyers{" "}
          <small className="quiet" data-testid="buyer-total">
            {window.totalCount.toLocaleString("en")} in all
          </small>
        </h3>
        <ol className="buyers" data-testid="buyers" start={newest + 1}>
          {[...window.edges].reverse().map(({ cursor, node }, index) => (
            <li key={cursor} value={newest + index + 1}>
              {node.databaseId}
            </li>
          ))}
        </ol>
        <nav className="pager">
          <button disabled={buyers.page === 1} onClick={buyers.back}>
            ← Newer
          </button>
          <button
            disabled={!window.pageInfo.hasPreviousPage || data === undefined}
            onClick={() => buyers.forward(window.pageInfo.startCursor ?? null)}
          >
            Older →
          </button>
        </nav>
      </section>
    </article>
  );
}

/**
 * One click is one order line with its own purchaseId; "Send again" resends that line, as a client does after a
 * timeout, and the API answers it as a replay.
 */
function BuyButton({ bookId, onBought }: { bookId: string; onBought: () => void }) {
  const [customerId, setCustomerId] = useState("web-shopper");
  const [purchaseId, setPurchaseId] = useState<string | null>(null);
  const [buy, { data, error, loading }] = useMutation(BUY);
  const send = (line: string) => {
    setPurchaseId(line);
    // A failure shows in `error` below; an abort (the page was left meanwhile) needs nothing.
    settle(buy({ variables: { bookId, customerId, purchaseId: line } }).then(onBought));
  };
  const outcome = data?.recordPurchase;
  return (
    <div className="buy">
      <label>
        Customer <input value={customerId} onChange={(event) => setCustomerId(event.target.value)} />
      </label>
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
