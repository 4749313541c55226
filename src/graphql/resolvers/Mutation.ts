import type { MutationResolvers, RecordPurchaseInput } from "../__generated__/resolvers-types";
import { formatBookId, parseBookId, parsePurchaseId } from "../../sales/book-ids";
import type { PurchaseRequest } from "../../sales/purchases";
import { withBookOnSpans } from "../../observability/tracing";
import { bookIdFromEither, customerIdFromEither } from "../schema/global-ids";
import type { Principal } from "../../auth/principal";
import { InvalidInputError } from "../../sales/errors";

// Both need catalog:write, or for a shopper's own purchase the shopper's token, checked for the whole operation before
// any resolver runs (../access.ts): a shopper naming another customer never gets here.
export const Mutation: MutationResolvers = {
  addBook: (_parent, { input }, { catalog }) =>
    catalog.addBook({ ...input, id: input.id == null ? null : parseBookId(input.id, "input.id") }),

  recordPurchase: (_parent, { input }, { purchases, principal }) =>
    withPurchaseRequest(input, principal, (request) => purchases.record(request)),
};

/** The purchase `input` asks for, its book id on the request's trace spans. */
function withPurchaseRequest<T>(
  input: RecordPurchaseInput,
  principal: Principal,
  use: (request: PurchaseRequest) => Promise<T>,
): Promise<T> {
  const purchaseId = input.purchaseId == null ? {} : { purchaseId: parsePurchaseId(input.purchaseId, "input.purchaseId") };
  const request = {
    bookId: bookIdFromEither(input.bookId, "input.bookId"),
    customerId: buyerOf(input, principal),
    ...purchaseId,
  };
  return withBookOnSpans(formatBookId(request.bookId), () => use(request));
}

/** The customer `input` names, or the signed-in shopper when it names none; a service token must name one. */
function buyerOf(input: RecordPurchaseInput, principal: Principal): string {
  if (input.customerId != null) return customerIdFromEither(input.customerId, "input.customerId");
  if (principal.kind === "shopper") return principal.customerId;
  throw new InvalidInputError(
    "input.customerId names the buyer: only a shopper's token, which names its shopper, may leave it out.",
    "input.customerId",
  );
}
