import type { Db } from "mongodb";
import { checkWindowSize } from "./books";
import { EXTRA_SALES, salesCollection, type BookId, type BookDocument } from "./documents";

/**
 * How many of a book's buyers "also bought" counts over: its earliest distinct buyers, from the
 * embedded array only (at most the outlier threshold), so the sample costs one small read however many purchases the book has.
 */
export const ALSO_BOUGHT_SAMPLE_SIZE = 50;

/** A book bought by `sharedBuyers` of the sampled buyers of another. */
export interface Recommendation {
  book: BookDocument;
  sharedBuyers: number;
}

export interface RecommendedBookId {
  _id: BookId;
  sharedBuyers: number;
}

/**
 * The books most often bought by `bookId`'s sampled buyers, most shared buyers first, ties in book id
 * order, never the book itself. Two commands: the sample (the embedded array's first
 * ALSO_BOUGHT_SAMPLE_SIZE entries, one document), then one aggregation over both multikey indexes
 * (`$unionWith` the extra_sales pages) that returns only book ids and counts. The documents it examines are
 * the books and extra_sales pages holding a sampled buyer: bounded by the sample's own purchase histories,
 * never by how many purchases this book has.
 */
export async function retrieveAlsoBought(db: Db, bookId: BookId, first: number): Promise<RecommendedBookId[]> {
  checkWindowSize(first);
  if (first === 0) return [];
  const sampled = await salesCollection(db).findOne(
    { _id: bookId },
    { projection: { _id: 0, customers_purchased: { $slice: ALSO_BOUGHT_SAMPLE_SIZE } } },
  );
  const buyers = [...new Set(sampled?.customers_purchased ?? [])];
  if (buyers.length === 0) return [];
  // $literal: a customer id starting with "$" would otherwise be read as a field path.
  const sharedWith = (field: string) => ({ $setIntersection: [`$${field}`, { $literal: buyers }] });
  return salesCollection(db)
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
    .toArray();
}
