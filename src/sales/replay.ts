import type { Db } from "mongodb";
import { foundBook, WITHOUT_BUYERS } from "./books";
import { salesCollection, type BookId, type PurchaseStorage } from "./documents";
import type { PurchaseOutcome } from "./purchases";

/**
 * The answer to a retry of a purchase already recorded: the book as it stands now (it includes the
 * purchase, and maybe later ones), with where the purchase went. Nothing is written.
 */
export async function replay(db: Db, bookId: BookId, storedIn: PurchaseStorage): Promise<PurchaseOutcome> {
  const book = await salesCollection(db).findOne({ _id: bookId }, { projection: WITHOUT_BUYERS });
  // Books are never deleted by this API, so a recorded purchase's book is there.
  return { book: foundBook(book, bookId), storedIn, replayed: true, purchasesInWrite: 0 };
}
