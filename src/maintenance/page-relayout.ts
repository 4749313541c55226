import type { Collection, Db, ObjectId } from "mongodb";
import { extraSalesCollection, RECONCILE_JOURNAL, type BookId } from "../sales/documents";
import { paginateExtraSales } from "./layout";

/**
 * A repair of one book's extra_sales pages in progress, in `reconcile_journal`: written in one insert before
 * any page is touched, so a repair cut off half-way is finished from it by the next `--fix`, never recomputed
 * from half-rewritten pages.
 */
export interface RelayoutJournalDocument {
  /** The book whose pages are being rewritten. */
  _id: BookId;
  /** The `_id`s of the pages being replaced, every one deleted before the new pages are written. */
  replaces: ObjectId[];
  /** The book's extra sales in the order the new pages hold them. */
  purchases: string[];
}

export function reconcileJournal(db: Db): Collection<RelayoutJournalDocument> {
  return db.collection<RelayoutJournalDocument>(RECONCILE_JOURNAL);
}

/** Books whose page repair was cut off before it finished. */
export async function interruptedRelayouts(db: Db): Promise<BookId[]> {
  return (
    await reconcileJournal(db)
      .find({}, { projection: { _id: 1 } })
      .toArray()
  ).map((journal) => journal._id);
}

/**
 * Rewrites a book's extra_sales pages as recordPurchase would have left them: every purchase kept, in page
 * order (and, within pages sharing a number, in the order they were created), full pages numbered from 0.
 * For pages duplicated while the unique `(book_id, page)` index was missing; the caller makes sure it still
 * is, since then the API writes no page (the page upsert needs the index) and nothing races the rewrite.
 * Steps, each safe to repeat: journal the new layout (or take the journal an interrupted run left), delete
 * the old pages, write the new ones, drop the journal.
 */
export async function relayOutPages(db: Db, bookId: BookId, pageSize: number): Promise<void> {
  const journal = (await reconcileJournal(db).findOne({ _id: bookId })) ?? (await journalNewLayout(db, bookId));
  const pages = extraSalesCollection(db);
  await pages.deleteMany({ _id: { $in: journal.replaces } });
  for (const page of paginateExtraSales(bookId, journal.purchases, pageSize))
    await pages.replaceOne({ book_id: bookId, page: page.page }, page, { upsert: true });
  await reconcileJournal(db).deleteOne({ _id: bookId });
}

async function journalNewLayout(db: Db, bookId: BookId): Promise<RelayoutJournalDocument> {
  // Legacy extra-sales documents (no page number) are migrate's business, not pages.
  const old = await extraSalesCollection(db)
    .find({ book_id: bookId, page: { $exists: true } })
    .sort({ page: 1, _id: 1 })
    .toArray();
  const journal: RelayoutJournalDocument = {
    _id: bookId,
    replaces: old.map((page) => page._id),
    purchases: old.flatMap((page) => page.customers_purchased_extra ?? []),
  };
  await reconcileJournal(db).insertOne(journal);
  return journal;
}
