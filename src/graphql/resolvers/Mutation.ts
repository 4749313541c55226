import type { MutationResolvers, RecordPurchaseInput } from "../__generated__/resolvers-types";
import { formatBookId, parseBookId, parsePurchaseId } from "../../sales/book-ids";
import type { PurchaseRequest } from "../../sales/purchases";
import { withBookOnSpans } from "../../observability/tracing";
import { bookIdFromEither, customerIdFromEither } from "../global-ids";

// Both need catalog:write, checked for the whole operation before any resolver runs (../access.ts).
export const Mutation: MutationResolvers = {
  addBook: (_parent, { input }, { catalog }) =>
    catalog.addBook({ ...input, id: input.id == null ? null : parseBookId(input.id, "input.id") }),

  recordPurchase: (_parent, { input }, { purchases }) => withPurchaseRequest(input, (request) => purchases.record(request)),
};

/** The purchase `input` asks for, its book id on the request's trace spans. */
function withPurchaseRequest<T>(input: RecordPurchaseInput, use: (request: PurchaseRequest) => Promise<T>): Promise<T> {
  const purchaseId = input.purchaseId == null ? {} : { purchaseId: parsePurchaseId(input.purchaseId, "input.purchaseId") };
  const request = {
    bookId: bookIdFromEither(input.bookId, "input.bookId"),
    customerId: customerIdFromEither(input.customerId, "input.customerId"),
    ...purchaseId,
  };
  return withBookOnSpans(formatBookId(request.bookId), () => use(request));
}
