import type { MutationResolvers } from "../__generated__/resolvers-types";
import { parseBookId, parseCustomerId } from "../../sales/book-ids";
import { createBook } from "../../sales/books";
import { recordPurchase } from "../../sales/purchases";

export const Mutation: MutationResolvers = {
  addBook: (_parent, { input }, { db, settings }) =>
    createBook(db, { ...input, id: input.id == null ? null : parseBookId(input.id, "input.id") }, settings),

  recordPurchase: (_parent, { input }, { db, settings }) =>
    recordPurchase(db, parseBookId(input.bookId, "input.bookId"), parseCustomerId(input.customerId, "input.customerId"), settings),
};
