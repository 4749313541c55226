import type { MutationResolvers } from "../__generated__/resolvers-types";
import { requireScope } from "../../auth/guard";
import { parseBookId, parseCustomerId } from "../../sales/book-ids";
import { createBook } from "../../sales/books";
import { recordPurchase } from "../../sales/purchases";

export const Mutation: MutationResolvers = {
  addBook: (_parent, { input }, context) => {
    requireScope(context, "catalog:write");
    const { db, settings } = context;
    return createBook(db, { ...input, id: input.id == null ? null : parseBookId(input.id, "input.id") }, settings);
  },

  recordPurchase: (_parent, { input }, context) => {
    requireScope(context, "catalog:write");
    const { db, settings } = context;
    return recordPurchase(db, parseBookId(input.bookId, "input.bookId"), parseCustomerId(input.customerId, "input.customerId"), settings);
  },
};
