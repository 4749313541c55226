import { useEffect } from "react";
import { describeError, type ShopperError } from "./errors";

// How often a page whose data failed asks again by itself, so that it recovers when the API returns.
const RECOVERY_INTERVAL_MS = 3_000;

/**
 * An error as the shopper reads it; `data-code` carries the API's code for tests and support. With `retry`, a
 * "Try again" button, and the page tries again by itself every few seconds until it gets an answer.
 */
export function ErrorNotice({
  error,
  described = describeError(error),
  retry,
}: {
  error?: unknown;
  described?: ShopperError;
  retry?: () => void;
}) {
  useEffect(() => {
    if (!retry) return;
    const timer = setInterval(retry, RECOVERY_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [retry]);
  return (
    <div role="alert" className="error" data-code={described.code}>
      <p>
        {described.message}
        {described.shownCode && <small> (reference: {described.code})</small>}
      </p>
      {retry && (
        <p>
          <button onClick={retry}>Try again</button> <span className="quiet">We keep trying by ourselves, too.</span>
        </p>
      )}
    </div>
  );
}

/** Grey bars the size of the list to come, while the first answer is on its way. */
export function Skeleton({ rows, label }: { rows: number; label: string }) {
  return (
    <ol className="skeleton" aria-busy="true" aria-label={label} data-testid="skeleton">
      {Array.from({ length: rows }, (_, row) => (
        <li key={row} />
      ))}
    </ol>
  );
}

/** A refetch whose failure the query's own error state already shows, and whose abort (the page was left) needs nothing. */
export function settle(promise: Promise<unknown>): void {
  promise.catch(() => undefined);
}
