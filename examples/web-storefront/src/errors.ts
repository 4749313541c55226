import { CombinedGraphQLErrors } from "@apollo/client";

// What a shopper is told for each of the API's stable codes (docs/api/errors.md); anything else shows the API's own message.
const MESSAGES: Record<string, string> = {
  NOT_FOUND: "There is no such book in the catalog.",
  UNAUTHENTICATED: "This storefront is not signed in to the catalog: set STOREFRONT_TOKEN to a token the API accepts.",
  FORBIDDEN: "This storefront's token may not do that: it needs purchases:read to show buyers and catalog:write to buy.",
  DATABASE_UNAVAILABLE: "The catalog is unavailable for a moment. Try again shortly.",
  DATABASE_NOT_READY: "The catalog is starting up. Try again shortly.",
  PURCHASE_IN_PROGRESS: "Your purchase is still being recorded. Try again in a moment: it will not be bought twice.",
};

export interface ShopperError {
  code: string;
  message: string;
  /** Whether the code is worth showing (an API's code a developer can look up), or only carried in `data-code`. */
  shownCode?: boolean;
}

/** A sentence for the shopper, with the API's code beside it for whoever reads the screen to a developer. */
export function describeError(error: unknown): ShopperError {
  if (CombinedGraphQLErrors.is(error)) {
    const [first] = error.errors;
    const code = String(first?.extensions?.["code"] ?? "ERROR");
    return { code, message: MESSAGES[code] ?? first?.message ?? "The API refused the request.", shownCode: true };
  }
  // The proxy's 500 or 502 while the API is away, or no answer at all: the shopper needs to know only that it will pass.
  return { code: "NETWORK", message: "The bookstore cannot be reached right now." };
}

/** `book(id:)` answers null for an id the catalog does not hold: the same words as the API's NOT_FOUND. */
export const NO_SUCH_BOOK: ShopperError = { code: "NOT_FOUND", message: MESSAGES["NOT_FOUND"]!, shownCode: true };
