import type { Collection, Db, Document } from "mongodb";
import { checkWindowSize } from "./books";
import { EXTRA_SALES, extraSalesCollection, SALES, salesCollection, type BookId } from "./documents";
import { compareBookIds, idsBeyond } from "./id-order";
import { bookIdKey } from "./book-ids";

export interface PurchaseHistoryWindow {
  /** The customer's books, each once, in book id order. */
  bookIds: BookId[];
  hasNextPage: boolean;
}

/**
 * The books a customer bought after `afterId`, in book id order, each once however often bought.
 * Two queries side by side, one per multikey index (`customers_purchased_1__id_1` on the books,
 * `customers_purchased_extra_1_book_id_1` on the extra_sales pages), each answering its own first
 * `first + 1` books; the window is the first `first + 1` of both, so the extra one tells whether more follow.
 * The book side stops after `first + 1` books; the extra-sales side reads every page holding this
 * customer past the cursor (to drop repeats), so it grows with the customer's own extra sales, never with a book's.
 */
export async function retrieveBooksPurchased(
  db: Db,
  customerId: string,
  afterId: BookId | null,
  first: number,
): Promise<PurchaseHistoryWindow> {
  checkWindowSize(first);
  const [embedded, extraSales] = await Promise.all([
    salesCollection(db)
      .find(afterFilter({ customers_purchased: customerId }, "_id", afterId), { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .limit(first + 1)
      .toArray(),
    extraSalesCollection(db)
      .aggregate<{ _id: BookId }>([
        { $match: afterFilter({ customers_purchased_extra: customerId }, "book_id", afterId) },
        { $group: { _id: "$book_id" } },
        { $sort: { _id: 1 } },
        { $limit: first + 1 },
      ])
      .toArray(),
  ]);
  const distinct = new Map([...embedded, ...extraSales].map(({ _id }) => [bookIdKey(_id), _id]));
  const bookIds = [...distinct.values()].sort(compareBookIds);
  return { bookIds: bookIds.slice(0, first), hasNextPage: bookIds.length > first };
}

function afterFilter(customerFilter: Document, idField: string, afterId: BookId | null): Document {
  return afterId === null ? customerFilter : { $and: [customerFilter, idsBeyond(idField, afterId, "after")] };
}

/** How many distinct books the customer bought: two `distinct` commands on the multikey indexes; grows with the customer's history. */
export async function countBooksPurchased(db: Db, customerId: string): Promise<number> {
  const [embedded, extraSales] = await Promise.all([
    salesCollection(db).distinct("_id", { customers_purchased: customerId }),
    extraSalesCollection(db).distinct("book_id", { customers_purchased_extra: customerId }),
  ]);
  return new Set([...embedded, ...extraSales].map(bookIdKey)).size;
}

/** "Did this customer buy this book?"; `hasExtras` says whether its extra_sales pages need asking too. */
export interface PurchaseQuestion {
  bookId: BookId;
  customerId: string;
  hasExtras: boolean;
}

/**
 * Answers every question of a request with at most two aggregations, one per multikey index: the
 * books' embedded arrays, and (only if some book is an outlier) the extra_sales pages of those books.
 * Each matched document returns only which of the asked customers it holds, never its buyers list.
 * Documents examined: one per asked book that holds the customer, plus one per extra_sales page of an
 * asked book holding the customer: it grows with how often the customer bought the book, not with the book's sales.
 */
export async function retrievePurchasedBy(db: Db, questions: readonly PurchaseQuestion[]): Promise<boolean[]> {
  const outliers = questions.filter((question) => question.hasExtras);
  const [embedded, extraSales] = await Promise.all([
    buyersAmong(db.collection(SALES), "_id", "customers_purchased", questions),
    outliers.length === 0 ? new Set<string>() : buyersAmong(db.collection(EXTRA_SALES), "book_id", "customers_purchased_extra", outliers),
  ]);
  return questions.map((question) => {
    const key = purchaseKey(question.bookId, question.customerId);
    return embedded.has(key) || extraSales.has(key);
  });
}

/** The (book, customer) pairs among `questions` that `collection` holds, as `purchaseKey`s. */
async function buyersAmong(
  collection: Collection<Document>,
  bookField: "_id" | "book_id",
  buyersField: "customers_purchased" | "customers_purchased_extra",
  questions: readonly PurchaseQuestion[],
): Promise<Set<string>> {
  const booksByCustomer = new Map<string, BookId[]>();
  for (const { bookId, customerId } of questions) booksByCustomer.set(customerId, [...(booksByCustomer.get(customerId) ?? []), bookId]);
  const customerIds = [...booksByCustomer.keys()];
  const branches = [...booksByCustomer].map(([customerId, bookIds]) => ({ [buyersField]: customerId, [bookField]: { $in: bookIds } }));
  const matches = await collection
    .aggregate<{ book: BookId; customers: string[] }>(
      [
        { $match: branches.length === 1 ? branches[0]! : { $or: branches } },
        // $literal: a customer id starting with "$" would otherwise be read as a field path.
        { $project: { _id: 0, book: `$${bookField}`, customers: { $setIntersection: [`$${buyersField}`, { $literal: customerIds }] } } },
      ],
      // The multikey index, named by its keys: the (book_id, page) and _id indexes would read every page of an asked book.
      { hint: { [buyersField]: 1, [bookField]: 1 } },
    )
    .toArray();
  return new Set(matches.flatMap(({ book, customers }) => customers.map((customerId) => purchaseKey(book, customerId))));
}

/** One (book, customer) pair as a string, for sets and DataLoader's cache. */
export function purchaseKey(bookId: BookId, customerId: string): string {
  return `${bookIdKey(bookId)}\u0000${customerId}`;
}
