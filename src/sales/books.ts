import { ObjectId, type Db } from "mongodb";
import type { OutlierSettings } from "../config";
import { isDuplicateKeyError } from "../db/errors";
import { salesCollection, type BookId, type BookDocument, type BookWithoutBuyers } from "./documents";
import { formatBookId } from "./book-ids";
import { BookAlreadyExistsError, BookNotFoundError, InvalidInputError } from "./errors";
import { searchWordsOf } from "./search-words";

export const MAX_TITLE_LENGTH = 500;
export const MAX_AUTHOR_LENGTH = 200;
/**
 * The most items one connection window (`first`, `last`, `top`) may hold. "Window" is the client's
 * page of a list; "page" is reserved for an `extra_sales` document and its configured size.
 */
export const MAX_WINDOW_SIZE = 100;

export interface NewBook {
  id?: BookId | null;
  title: string;
  author: string;
  year?: number | null;
}

/** A book document with no purchases yet, in the field order every writer of this project uses. */
export function emptySalesDocument(book: NewBook & { id: BookId }, settings: Pick<OutlierSettings, "extraSalesPageSize">): BookDocument {
  return {
    _id: book.id,
    title: book.title,
    author: book.author,
    ...(book.year == null ? {} : { year: book.year }),
    search_words: searchWordsOf(book),
    customers_purchased: [],
    has_extras: false,
    purchase_count: 0,
    extra_page_size: settings.extraSalesPageSize,
  };
}

export async function createBook(db: Db, book: NewBook, settings: Pick<OutlierSettings, "extraSalesPageSize">): Promise<BookDocument> {
  checkText(book.title, "title", MAX_TITLE_LENGTH);
  checkText(book.author, "author", MAX_AUTHOR_LENGTH);
  const document = emptySalesDocument({ ...book, id: book.id ?? new ObjectId() }, settings);
  try {
    await salesCollection(db).insertOne(document);
  } catch (error) {
    if (isDuplicateKeyError(error)) {
      throw new BookAlreadyExistsError(formatBookId(document._id));
    }
    throw error;
  }
  return document;
}

function checkText(value: string, argument: string, maxLength: number): void {
  if (value.trim().length === 0 || value.length > maxLength) {
    throw new InvalidInputError(`${argument} must be 1 to ${maxLength} characters long and not blank.`, argument);
  }
}

export function checkWindowSize(size: number, argument = "first"): void {
  if (!Number.isInteger(size) || size < 0 || size > MAX_WINDOW_SIZE) {
    throw new InvalidInputError(`${argument} must be from 0 to ${MAX_WINDOW_SIZE}, got ${size}.`, argument);
  }
}

/**
 * A find projection that sends back a book without its search words (the search's index is their only
 * reader) and with only the first buyers of its embedded array, or all of it; see `embeddedBuyersProjection`.
 */
export type BookProjection = { search_words: 0; customers_purchased?: { $slice: number } };

/**
 * Every field of a book but its search words and the embedded buyers, of which only the first
 * `embeddedBuyers` (all of them when the array is shorter). The other fields are a few small scalars;
 * the array is most of a book's bytes. A book read this way answers any window of buyers ending before
 * `embeddedBuyers`: when the array comes back shorter than asked, it is the whole array, so where the
 * extra sales start is still known; when it comes back full, the window lies inside it. `Infinity`
 * reads the whole array.
 */
export function embeddedBuyersProjection(embeddedBuyers: number): BookProjection {
  // A window counted from the end (`last`) needs the whole array, however long a legacy book's is.
  if (!Number.isFinite(embeddedBuyers)) return { search_words: 0 };
  return { search_words: 0, customers_purchased: { $slice: embeddedBuyers } };
}

/**
 * What a write sends back of a book: every field but its search words and its embedded buyers. A write
 * cannot know which of the buyers its caller will show, so it ships none, and the read that shows them
 * loads them itself (see `Book.customersPurchased`).
 */
export const WITHOUT_BUYERS = { search_words: 0, customers_purchased: 0 } as const;

/** `book` as a command found it, or NOT_FOUND for `bookId` when it found none. */
export function foundBook<T>(book: T | null, bookId: BookId): T {
  if (book === null) throw new BookNotFoundError(formatBookId(bookId));
  return book;
}

/**
 * The books with these ids that exist, in no particular order. One id is an equality on `_id` for one
 * document, as `findOne` sends it: mongod answers that by its `_id` fast path (IDHACK), without planning
 * an index scan for a one-element `$in`; the same one key and one document examined.
 */
export function retrieveBooksByIds(db: Db, ids: readonly BookId[]): Promise<BookDocument[]>;
/** Without their embedded buyers too (`WITHOUT_BUYERS`), for an operation no field of which reads them. */
export function retrieveBooksByIds(db: Db, ids: readonly BookId[], buyers: false): Promise<BookWithoutBuyers[]>;
export async function retrieveBooksByIds(db: Db, ids: readonly BookId[], buyers = true): Promise<BookWithoutBuyers[]> {
  // Without its search words, which only the search's index reads: most of a generated book's bytes with its buyers.
  const options = { projection: buyers ? { search_words: 0 } : WITHOUT_BUYERS };
  if (ids.length === 1) {
    const book = await salesCollection(db).findOne({ _id: ids[0]! }, options);
    return book === null ? [] : [book];
  }
  return salesCollection(db)
    .find({ _id: { $in: [...ids] } }, options)
    .toArray();
}

/**
 * The collection's metadata count, not a count of documents one by one: constant time at any catalog
 * size. mongod keeps it exact in normal operation; it can be off after an unclean shutdown (until the
 * collection is validated) and, on a sharded cluster, counts orphaned documents left by chunk migrations.
 */
export async function countBooks(db: Db): Promise<number> {
  return salesCollection(db).estimatedDocumentCount();
}
