import type { MutationResolvers } from "../__generated__/resolvers-types";
import type { RecordPurchaseInput } from "../__generated__/resolvers-types";
import { formatBookId, parseBookId, parsePurchaseId } from "../../sales/book-ids";
import { withBookOnSpans } from "../../observability/tracing";
import { bookIdFromEither, customerIdFromEither } from "../global-ids";
import { createBook } from "../../sales/books";
import { recordPurchaseRequest, type PurchaseRequest } from "../../sales/purchase-requests";
import { embeddedBuyersSelected } from "../selection";

// Both need catalog:write, checked for the whole operation before any resolver runs (../access.ts).
export const Mutation: MutationResolvers = {
  addBook: (_parent, { input }, { db, settings }) =>
    createBook(db, { ...input, id: input.id == null ? null : parseBookId(input.id, "input.id") }, settings),

  recordPurchase: (_parent, { input }, { db, settings, purchases }, info) => {
    const options = { ...purchases, embeddedBuyers: embeddedBuyersSelected(info, ["book"]) };
    const request = parsePurchaseRequest(input);
    return withBookOnSpans(formatBookId(request.bookId), () => recordPurchaseRequest(db, request, settings, purchases.timing, options));
  },
};

function parsePurchaseRequest(input: RecordPurchaseInput): PurchaseRequest {
  const purchaseId = input.purchaseId == null ? {} : { purchaseId: parsePurchaseId(input.purchaseId, "input.purchaseId") };
  return {
    bookId: bookIdFromEither(input.bookId, "input.bookId"),
    customerId: customerIdFromEither(input.customerId, "input.customerId"),
    ...purchaseId,
  };
}
