import type { MutationResolvers } from "../__generated__/resolvers-types";
import { requireScope } from "../../auth/guard";
import type { RecordPurchaseInput } from "../__generated__/resolvers-types";
import { parseBookId, parseCustomerId, parsePurchaseId } from "../../sales/book-ids";
import { createBook } from "../../sales/books";
import { recordPurchaseRequest, type PurchaseRequest } from "../../sales/purchase-requests";

export const Mutation: MutationResolvers = {
  addBook: (_parent, { input }, context) => {
    requireScope(context, "catalog:write");
    const { db, settings } = context;
    return createBook(db, { ...input, id: input.id == null ? null : parseBookId(input.id, "input.id") }, settings);
  },

  recordPurchase: (_parent, { input }, context) => {
    requireScope(context, "catalog:write");
    const { db, settings } = context;
    return recordPurchaseRequest(db, parsePurchaseRequest(input), settings);
  },
};

function parsePurchaseRequest(input: RecordPurchaseInput): PurchaseRequest {
  const purchaseId = input.purchaseId == null ? {} : { purchaseId: parsePurchaseId(input.purchaseId, "input.purchaseId") };
  return { bookId: parseBookId(input.bookId, "input.bookId"), customerId: parseCustomerId(input.customerId, "input.customerId"), ...purchaseId };
}
