import { MongoClient, type Db } from "mongodb";

/**
 * What the peers the API is compared with share (`bare-api-process.ts`, Apollo Server on Express, and
 * `mercurius-process.ts`, Mercurius on Fastify): the schema, the resolvers and the database. Written once, so
 * that the two peers differ in their framework alone, never in a copy of the resolvers. As a developer writes
 * them in an afternoon: one resolver per field, the driver, no limits, no access checks, no DataLoader. They
 * answer the requests the comparisons send with the database commands a plain resolver sends: a `find` on
 * `_id`; a `find` sorted on `_id` and the collection's metadata count; and, for the storefront listing, one
 * `find` of a book's extra sales for each book whose embedded buyers are fewer than asked. Both peers give the
 * resolvers a context holding `db`. It lives in bench/ and nowhere in the product.
 */

export const typeDefs = `#graphql
  type Customer {
    databaseId: ID!
  }
  type BuyerEdge {
    node: Customer!
  }
  type BuyerConnection {
    edges: [BuyerEdge!]!
  }
  type Book {
    id: ID!
    databaseId: ID!
    title: String!
    author: String!
    year: Int
    purchaseCount: Int!
    customersPurchased(first: Int!): BuyerConnection!
  }
  type BookEdge {
    cursor: String!
    node: Book!
  }
  type PageInfo {
    hasNextPage: Boolean!
    endCursor: String
  }
  type BookConnection {
    totalCount: Int!
    edges: [BookEdge!]!
    pageInfo: PageInfo!
  }
  type Query {
    book(id: ID!): Book
    books(first: Int, after: String): BookConnection!
  }
`;

interface StoredBook {
  _id: number | string;
  title: string;
  author: string;
  year?: number | null;
  purchase_count: number;
  customers_purchased: string[];
  has_extras: boolean;
}

interface StoredPage {
  book_id: number | string;
  page: number;
  customers_purchased_extra: string[];
}

export interface PeerContext {
  db: Db;
}

const sales = (db: Db) => db.collection<StoredBook>("sales");
const extraSales = (db: Db) => db.collection<StoredPage>("extra_sales");
// The bench's books have decimal integer ids, stored as numbers.
const storedId = (id: string) => (/^\d+$/.test(id) ? Number(id) : id);
const cursorOf = (book: StoredBook) => Buffer.from(String(book._id)).toString("base64");
const idAfter = (cursor: string) => storedId(Buffer.from(cursor, "base64").toString());

/** The book's first `first` buyers: the embedded ones, then its extra sales page by page until there are enough. */
async function firstBuyers(db: Db, book: StoredBook, first: number): Promise<string[]> {
  const buyers = book.customers_purchased.slice(0, first);
  if (!book.has_extras || buyers.length >= first) return buyers;
  for await (const page of extraSales(db).find({ book_id: book._id }).sort({ page: 1 })) {
    buyers.push(...page.customers_purchased_extra);
    if (buyers.length >= first) break;
  }
  return buyers.slice(0, first);
}

export const resolvers = {
  Query: {
    book: (_parent: unknown, { id }: { id: string }, { db }: PeerContext) => sales(db).findOne({ _id: storedId(id) }),
    books: async (_parent: unknown, { first, after }: { first?: number | null; after?: string | null }, { db }: PeerContext) => {
      const limit = first ?? 10;
      const filter = after ? { _id: { $gt: idAfter(after) } } : {};
      // One book more than asked says whether there is a next page.
      const books = await sales(db)
        .find(filter)
        .sort({ _id: 1 })
        .limit(limit + 1)
        .toArray();
      return { books: books.slice(0, limit), hasNextPage: books.length > limit };
    },
  },
  BookConnection: {
    totalCount: (_connection: unknown, _args: unknown, { db }: PeerContext) => sales(db).estimatedDocumentCount(),
    edges: ({ books }: { books: StoredBook[] }) => books.map((node) => ({ cursor: cursorOf(node), node })),
    pageInfo: ({ books, hasNextPage }: { books: StoredBook[]; hasNextPage: boolean }) => ({
      hasNextPage,
      endCursor: books.length > 0 ? cursorOf(books.at(-1)!) : null,
    }),
  },
  Book: {
    id: (book: StoredBook) => Buffer.from(`Book:${book._id}`).toString("base64"),
    databaseId: (book: StoredBook) => String(book._id),
    purchaseCount: (book: StoredBook) => book.purchase_count,
    customersPurchased: async (book: StoredBook, { first }: { first: number }, { db }: PeerContext) => ({
      edges: (await firstBuyers(db, book, first)).map((databaseId) => ({ node: { databaseId } })),
    }),
  },
};

/** The database the bench points a peer at (MONGODB_URI, MONGODB_DB), and how to let it go when the peer stops. */
export async function openPeerDatabase(): Promise<{ db: Db; close: () => Promise<void> }> {
  const [uri, dbName] = [process.env["MONGODB_URI"], process.env["MONGODB_DB"]];
  if (!uri || !dbName) throw new Error("MONGODB_URI and MONGODB_DB must be set");
  const client = await new MongoClient(uri).connect();
  return { db: client.db(dbName), close: () => client.close() };
}
