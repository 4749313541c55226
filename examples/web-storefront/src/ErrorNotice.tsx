import { describeError, type ShopperError } from "./errors";

/** An error as the shopper reads it; `data-code` carries the API's code for tests and support. */
export function ErrorNotice({ error, described = describeError(error) }: { error?: unknown; described?: ShopperError }) {
  return (
    <p role="alert" data-code={described.code} style={{ color: "#a00" }}>
      {described.message} <small>({described.code})</small>
    </p>
  );
}
