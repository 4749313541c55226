import { createServer } from "node:http";
import { once } from "node:events";
import { WebSocketServer, type WebSocket } from "ws";
import { connectToDatabase } from "../../src/db/connection";
import { salesCollection } from "../../src/sales/documents";
import { ChangeFeed } from "../../src/graphql/live/change-feed";

/**
 * The subscriber benchmark's baseline, in a process of its own as the API is: the product's change feed (one
 * stream, the same `$match`), fanned out in memory by book, and each change's count sent as a bare JSON message
 * (`{ bookId, purchaseCount }`) to every WebSocket that named the book, with no GraphQL, no graphql-ws protocol,
 * no access checks and no conflation. What the API costs beyond this is the cost of serving it as GraphQL
 * subscriptions. A socket names its books in its first message (`{ ids }`) and gets each one's count at once,
 * as a subscription's first values. Prints its ws:// URL once it listens.
 */
async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  if (!uri || !process.env.MONGODB_DB) throw new Error("usage: MONGODB_URI=… MONGODB_DB=… bare-subscriptions-process");
  const { db } = await connectToDatabase(uri, process.env.MONGODB_DB);
  const sales = salesCollection(db);
  const byBook = new Map<string, Set<WebSocket>>();
  const feed = new ChangeFeed(sales, {
    onChange: (change) => {
      if (change.purchaseCount === undefined) return;
      const bookId = String(change.bookId);
      const message = JSON.stringify({ bookId, purchaseCount: change.purchaseCount });
      for (const socket of byBook.get(bookId) ?? []) socket.send(message);
    },
    onHistoryLost: () => process.stderr.write("bare-subscriptions-process: change stream history lost\n"),
    onRestart: (reason, error) =>
      process.stderr.write(`bare-subscriptions-process: change stream restarted (${reason}): ${String(error)}\n`),
  });
  await feed.start();
  const server = createServer();
  new WebSocketServer({ server }).on("connection", (socket) => {
    socket.once("message", (data) => {
      const ids = (JSON.parse(String(data)) as { ids: string[] }).ids;
      for (const bookId of ids) byBook.set(bookId, (byBook.get(bookId) ?? new Set()).add(socket));
      socket.once("close", () => ids.forEach((bookId) => byBook.get(bookId)?.delete(socket)));
      void sales
        .find({ _id: { $in: ids } }, { projection: { purchase_count: 1 } })
        .forEach((book) => socket.send(JSON.stringify({ bookId: String(book._id), purchaseCount: book.purchase_count ?? 0 })));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  process.stdout.write(`ws://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/\n`);
  process.once("SIGTERM", () => void feed.stop().then(() => process.exit(0)));
}

void main().catch((error: unknown) => {
  process.stderr.write(`bare-subscriptions-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
