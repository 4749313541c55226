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
 * limits, no access checks, no logs, no metrics, no DataLoader. It answers the three requests the
 * comparison sends with the same database commands as the API (a `find` on `_id`; a `find` sorted
 * on `_id` and the collection's metadata count), so the two differ only in what sits on the request
 * path. It lives in bench/ and nowhere in the product. Prints its URL once it listens.
 */

const typeDefs = `#graphql
  type Book {
    id: ID!
    title: String!
    purchaseCount: Int!
  }
  type BookEdge {
    node: Book!
  }
  type BookConnection {
    totalCount: Int!
    edges: [BookEdge!]!
  }
  type Query {
    book(id: ID!): Book
    books(first: Int): BookConnection!
  }
`;

interface StoredBook {
  _id: number | string;
  title: string;
  purchase_count: number;
}

const sales = (db: Db) => db.collection<StoredBook>("sales");
// The bench's books have decimal integer ids, stored as numbers.
const storedId = (id: string) => (/^\d+$/.test(id) ? Number(id) : id);

const resolvers = {
  Query: {
    book: (_parent: unknown, { id }: { id: string }, { db }: { db: Db }) => sales(db).findOne({ _id: storedId(id) }),
    books: async (_parent: unknown, { first }: { first?: number | null }, { db }: { db: Db }) => {
      const books = await sales(db)
        .find()
        .sort({ _id: 1 })
        .limit(first ?? 10)
        .toArray();
      return { books };
    },
  },
  BookConnection: {
    totalCount: (_connection: unknown, _args: unknown, { db }: { db: Db }) => sales(db).estimatedDocumentCount(),
    edges: ({ books }: { books: StoredBook[] }) => books.map((node) => ({ node })),
  },
  Book: {
    id: (book: StoredBook) => String(book._id),
    purchaseCount: (book: StoredBook) => book.purchase_count,
  },
};

async function main(): Promise<void> {
  const [uri, dbName] = [process.env["MONGODB_URI"], process.env["MONGODB_DB"]];
  if (!uri || !dbName) throw new Error("MONGODB_URI and MONGODB_DB must be set");
  const client = await new MongoClient(uri).connect();
  const db = client.db(dbName);
  const app = express();
  const httpServer = http.createServer(app);
  const apollo = new ApolloServer<{ db: Db }>({ typeDefs, resolvers });
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
