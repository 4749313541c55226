import { useLazyQuery, useMutation, useQuery } from "@apollo/client/react";
import { useState } from "react";
import { ErrorNotice } from "./ErrorNotice";
import { NO_SUCH_BOOK } from "./errors";
import { BOOK_PAGE, BUY, NEWEST_BUYERS } from "./operations";

const BUYERS_PER_WINDOW = 100;
const NEWEST = 10;

/** A book: its buyers a window at a time (embedded and overflow alike), the newest ones, what they also bought, and "Buy". */
export function BookPage({ id }: { id: string }) {
  const { data, error, loading, fetchMore } = useQuery(BOOK_PAGE, { variables: { id, buyers: BUYERS_PER_WINDOW } });
  if (error) return <ErrorNotice error={error} />;
  if (!data) return <p>Loading the book…</p>;
  const { book } = data;
  if (!book) return <ErrorNotice described={NO_SUCH_BOOK} />;
  const buyers = book.customersPurchased;
  return (
    <article>
      <h2 data-testid="title">{book.title}</h2>
      <p>
        by {book.author} — <span data-testid="purchase-count">{book.purchaseCount}</span> sold
      </p>
      <BuyButton bookId={book.id} />
      <h3>
        Buyers{" "}
        <small data-testid="buyer-count">
          ({buyers.edges.length} of {buyers.totalCount} shown)
        </small>
      </h3>
      <ol data-testid="buyers" style={{ columns: 4 }}>
        {buyers.edges.map(({ cursor, node }) => (
          <li key={cursor}>{node.databaseId}</li>
        ))}
      </ol>
      {buyers.pageInfo.hasNextPage && (
        <button disabled={loading} onClick={() => void fetchMore({ variables: { after: buyers.pageInfo.endCursor } })}>
          Load more buyers
        </button>
      )}
      <NewestBuyers bookId={book.id} />
      <h3>Customers also bought</h3>
      <ul data-testid="also-bought">
        {book.alsoBought.map(({ book: other, sharedBuyers }) => (
          <li key={other.id}>
            <a href={`#/book/${encodeURIComponent(other.id)}`}>{other.title}</a> ({sharedBuyers} shared buyers)
          </li>
        ))}
      </ul>
    </article>
  );
}

/** The last buyers first, read with `last`; kept out of the normalized list, which grows forward. */
function NewestBuyers({ bookId }: { bookId: string }) {
  const [load, { data, error }] = useLazyQuery(NEWEST_BUYERS, { fetchPolicy: "no-cache" });
  const newest = data?.book?.customersPurchased.edges.map(({ node }) => node.databaseId).reverse();
  return (
    <section>
      <button onClick={() => void load({ variables: { id: bookId, last: NEWEST } })}>Newest first</button>
      {error && <ErrorNotice error={error} />}
      {newest && <p data-testid="newest-buyers">{newest.join(", ")}</p>}
    </section>
  );
}

/**
 * One click is one order line with its own purchaseId; "Send again" resends that line, as a client does after a
 * timeout, and the API answers it as a replay. The count on screen comes from the mutation's payload.
 */
function BuyButton({ bookId }: { bookId: string }) {
  const [customerId, setCustomerId] = useState("web-shopper");
  const [purchaseId, setPurchaseId] = useState<string | null>(null);
  const [buy, { data, error, loading }] = useMutation(BUY);
  const send = (line: string) => {
    setPurchaseId(line);
    void buy({ variables: { bookId, customerId, purchaseId: line } }).catch(() => undefined);
  };
  const outcome = data?.recordPurchase;
  return (
    <section>
      <label>
        Customer <input value={customerId} onChange={(event) => setCustomerId(event.target.value)} />
      </label>{" "}
      <button disabled={loading} onClick={() => send(crypto.randomUUID())}>
        Buy
      </button>{" "}
      <button disabled={loading || purchaseId === null} onClick={() => purchaseId && send(purchaseId)}>
        Send again
      </button>
      {error && <ErrorNotice error={error} />}
      {outcome && (
        <p data-testid="purchase-outcome">
          {outcome.replayed ? "Already bought: this order line was recorded before." : `Bought, stored in ${outcome.storedIn}.`}
        </p>
      )}
    </section>
  );
}
