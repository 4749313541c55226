import { createServer } from "node:http";
import { once } from "node:events";
import { WebSocketServer, type WebSocket } from "ws";
import { connectToDatabase } from "../../src/db/connection";
import { salesCollection } from "../../src/sales/documents";
import { ChangeFeed } from "../../src/sales/live/change-feed";

/**
 * The subscriber benchmark's baseline, in a process of its own as the API is: the product's change feed (one
 * stream, the same `$match`), and each change's count sent as a bare JSON message to every open WebSocket, with
 * no GraphQL, no graphql-ws protocol, no access checks and no conflation. What the API costs beyond this is
 * the cost of serving it as GraphQL subscriptions. Each socket gets the book's count on connecting, as a
 * subscription's first value. Argument: the book's id. Prints its ws:// URL once it listens.
 */
async function main(): Promise<void> {
  const [bookId] = process.argv.slice(2);
  const uri = process.env.MONGODB_URI;
  if (!bookId || !uri || !process.env.MONGODB_DB) throw new Error("usage: MONGODB_URI=… MONGODB_DB=… bare-subscriptions-process BOOK_ID");
  const { db } = await connectToDatabase(uri, process.env.MONGODB_DB);
  const sales = salesCollection(db);
  const sockets = new Set<WebSocket>();
  const feed = new ChangeFeed(sales, {
    onChange: (change) => {
      if (change.bookId !== bookId || change.purchaseCount === undefined) return;
      const message = JSON.stringify({ purchaseCount: change.purchaseCount });
      for (const socket of sockets) socket.send(message);
    },
    onHistoryLost: () => process.stderr.write("bare-subscriptions-process: change stream history lost\n"),
    onRestart: (reason, error) =>
      process.stderr.write(`bare-subscriptions-process: change stream restarted (${reason}): ${String(error)}\n`),
  });
  await feed.start();
  const server = createServer();
  new WebSocketServer({ server }).on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    void sales
      .findOne({ _id: bookId }, { projection: { purchase_count: 1 } })
      .then((book) => socket.send(JSON.stringify({ purchaseCount: book?.purchase_count ?? 0 })));
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
