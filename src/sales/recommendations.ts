import type { Db } from "mongodb";
import { bookIdKey } from "./book-ids";
import { checkWindowSize } from "./books";
import { EXTRA_SALES, salesCollection, type BookId, type BookWithoutBuyers } from "./documents";
import type { PoolShare } from "./pool-share";

/**
 * How many of a book's buyers "also bought" counts over: its earliest distinct buyers, from the
 * embedded array only (at most the outlier threshold), so the sample costs one small read however many purchases the book has.
 */
export const ALSO_BOUGHT_SAMPLE_SIZE = 50;

/** A book bought by `sharedBuyers` of the sampled buyers of another; its embedded buyers read only when the operation reads them. */
export interface Recommendation {
  book: BookWithoutBuyers;
  sharedBuyers: number;
}

export interface RecommendedBookId {
  _id: BookId;
  sharedBuyers: number;
}

/**
 * The sampled buyers of each book, in the order given (none for a book that does not exist): the embedded
 * array's first ALSO_BOUGHT_SAMPLE_SIZE distinct entries, one query for all the books.
 */
export async function retrieveAlsoBoughtSamples(db: Db, bookIds: readonly BookId[]): Promise<string[][]> {
  const sampled = await salesCollection(db)
    .find({ _id: { $in: [...bookIds] } }, { projection: { _id: 1, customers_purchased: { $slice: ALSO_BOUGHT_SAMPLE_SIZE } } })
    .toArray();
  const buyers = new Map(sampled.map((book) => [bookIdKey(book._id), [...new Set(book.customers_purchased)]]));
  return bookIds.map((id) => buyers.get(bookIdKey(id)) ?? []);
}

/**
 * The books most often bought by `bookId`'s sampled buyers (`sampleOf`, batched for all the books of a
 * request), most shared buyers first, ties in book id order, never the book itself. No command for
 * `first: 0`; otherwise, after the sample, one aggregation of this book's own, within the request's
 * `share` of the pool, over both multikey indexes (`$unionWith` the extra_sales pages), returning only book
 * ids and counts. The documents it examines are the books and extra_sales pages holding a sampled buyer:
 * bounded by the sample's own purchase histories, never by how many purchases this book has.
 */
export async function retrieveAlsoBought(
  db: Db,
  bookId: BookId,
  first: number,
  { sampleOf, share }: { sampleOf: (bookId: BookId) => Promise<string[]>; share: PoolShare },
): Promise<RecommendedBookId[]> {
  checkWindowSize(first);
  if (first === 0) return [];
  const buyers = await sampleOf(bookId);
  if (buyers.length === 0) return [];
  // $literal: a customer id starting with "$" would otherwise be read as a field path.
  const sharedWith = (field: string) => ({ $setIntersection: [`$${field}`, { $literal: buyers }] });
  return share.use(1, () =>
    salesCollection(db)
      .aggregate<RecommendedBookId>([
        { $match: { customers_purchased: { $in: buyers }, _id: { $ne: bookId } } },
        { $project: { _id: 0, book_id: "$_id", buyers: sharedWith("customers_purchased") } },
        {
          $unionWith: {
            coll: EXTRA_SALES,
            pipeline: [
              { $match: { customers_purchased_extra: { $in: buyers }, book_id: { $ne: bookId } } },
              { $project: { _id: 0, book_id: 1, buyers: sharedWith("customers_purchased_extra") } },
            ],
          },
        },
        { $unwind: "$buyers" },
        { $group: { _id: "$book_id", buyers: { $addToSet: "$buyers" } } },
        { $project: { sharedBuyers: { $size: "$buyers" } } },
        { $sort: { sharedBuyers: -1, _id: 1 } },
        { $limit: first },
      ])
      .toArray(),
  );
}
