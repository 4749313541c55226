import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { ApolloServer } from "@apollo/server";
import { expressMiddleware } from "@as-integrations/express5";
import cors from "cors";
import express from "express";
import { MongoClient, type Db } from "mongodb";

/**
 * The straightforward server the API is compared with: Apollo Server 5 on Express with the driver,
 * as a developer writes it in an afternoon from Apollo's own guide. One resolver per field, no
 * limits, no access checks, no logs, no metrics, no DataLoader. It answers the requests the
 * comparison sends with the database commands a plain resolver sends: a `find` on `_id`; a `find`
 * sorted on `_id` and the collection's metadata count; and, for the storefront listing, one `find`
 * of a book's extra sales for each book whose embedded buyers are fewer than asked. It lives in
 * bench/ and nowhere in the product. Prints its URL once it listens.
 */

const typeDefs = `#graphql
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

interface Context {
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

const resolvers = {
  Query: {
    book: (_parent: unknown, { id }: { id: string }, { db }: Context) => sales(db).findOne({ _id: storedId(id) }),
    books: async (_parent: unknown, { first, after }: { first?: number | null; after?: string | null }, { db }: Context) => {
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
    totalCount: (_connection: unknown, _args: unknown, { db }: Context) => sales(db).estimatedDocumentCount(),
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
    customersPurchased: async (book: StoredBook, { first }: { first: number }, { db }: Context) => ({
      edges: (await firstBuyers(db, book, first)).map((databaseId) => ({ node: { databaseId } })),
    }),
  },
};

async function main(): Promise<void> {
  const [uri, dbName] = [process.env["MONGODB_URI"], process.env["MONGODB_DB"]];
  if (!uri || !dbName) throw new Error("MONGODB_URI and MONGODB_DB must be set");
  const client = await new MongoClient(uri).connect();
  const db = client.db(dbName);
  const app = express();
  const httpServer = http.createServer(app);
  const apollo = new ApolloServer<Context>({ typeDefs, resolvers });
  await apollo.start();
  app.use("/graphql", cors(), express.json(), expressMiddleware(apollo, { context: async () => ({ db }) }));
  await once(httpServer.listen(0, "127.0.0.1"), "listening");
  process.stdout.write(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/graphql\n`);
  process.once("SIGTERM", () => void apollo.stop().then(() => client.close().then(() => process.exit(0))));
}

void main().catch((error: unknown) => {
  process.stderr.write(`bare-api-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
