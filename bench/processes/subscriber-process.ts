import { once } from "node:events";
import { createInterface } from "node:readline";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { subscribedBooks, valueKey, type MixBooks } from "../scenarios/subscriber-mix";

/**
 * Subscribers in a process of their own, each on a WebSocket of its own as each shopper's page is: `graphql`
 * subscribes with graphql-ws to `bookSales` of the books its place in the mix names (one book's page, or a shelf
 * of several), as the web storefront would; `bare` asks the baseline for the same books and reads its plain
 * messages. Arguments: url, graphql|bare, the first subscriber's number in the mix, count, the books (JSON `MixBooks`).
 *
 * Prints `ready` once every subscriber holds each of its books' first value; then reads one line from stdin
 * (`SubscriberWrites`: each book's final count, and the write time of each value by `valueKey`), waits until every
 * subscriber has seen each of its books' final count (or a minute has passed), and prints what it received as JSON
 * (`SubscriberReport`).
 */

export interface SubscriberWrites {
  finals: Record<string, number>;
  writtenAt: Record<string, number>;
}

export interface SubscriberReport {
  subscribers: number;
  /** Values received after each book's first, each a count a purchase brought. */
  delivered: number;
  /** Subscribers whose last value of every one of their books was its final count. */
  atFinal: number;
  /** Delivery latencies, from the purchase's write to the value's arrival, in 0.1 ms buckets: bucket → values. */
  latencyHistogram: Record<string, number>;
}

interface Subscriber {
  books: string[];
  /** Each book's last count received. */
  last: Map<string, number>;
}

// Opened a batch at a time, so that thousands of handshakes do not all wait on the API at once past connection_init's limit.
const BATCH = 100;
const SETTLE_LIMIT_MS = 60_000;
const BOOK_SALES = `subscription BenchBookSales($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;

const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const [url, protocol, fromText, countText, booksText] = process.argv.slice(2);
  const [from, count] = [Number(fromText), Number(countText)];
  if (!url || (protocol !== "graphql" && protocol !== "bare") || !Number.isInteger(from) || !Number.isInteger(count) || !booksText) {
    throw new Error("usage: subscriber-process URL graphql|bare FROM COUNT BOOKS_JSON");
  }
  const books = JSON.parse(booksText) as MixBooks;
  // Every value after a book's first, as [book:count, arrival]: the latencies are worked out once the write times are known.
  const arrivals: (string | number)[] = [];
  const receive: Receive = (subscriber, bookId, purchaseCount) => {
    const last = subscriber.last.get(bookId);
    // The same count again is the book's flag changing (hasExtras), which no purchase of the schedule brought as a value of its own.
    if (last !== undefined && last !== purchaseCount) arrivals.push(valueKey(bookId, purchaseCount), now());
    subscriber.last.set(bookId, purchaseCount);
    return subscriber.last.size === subscriber.books.length;
  };
  const subscribers: Subscriber[] = [];
  const closers: (() => void)[] = [];
  for (let opened = 0; opened < count; opened += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - opened) }, (_, offset) => {
      const subscriber: Subscriber = { books: subscribedBooks(from + opened + offset, books), last: new Map() };
      subscribers.push(subscriber);
      return protocol === "graphql"
        ? graphqlSubscriber(url, subscriber, receive, closers)
        : bareSubscriber(url, subscriber, receive, closers);
    });
    await Promise.all(batch);
  }
  process.stdout.write("ready\n");
  const [line] = (await once(createInterface({ input: process.stdin }), "line")) as [string];
  const { finals, writtenAt } = JSON.parse(line) as SubscriberWrites;
  const atFinal = (subscriber: Subscriber) => subscriber.books.every((bookId) => subscriber.last.get(bookId) === finals[bookId]);
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  while (!subscribers.every(atFinal) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const latencyHistogram: Record<string, number> = {};
  for (let index = 0; index < arrivals.length; index += 2) {
    const written = writtenAt[arrivals[index] as string];
    if (written === undefined) continue;
    const bucket = String(Math.max(0, Math.round(((arrivals[index + 1] as number) - written) * 10)));
    latencyHistogram[bucket] = (latencyHistogram[bucket] ?? 0) + 1;
  }
  const report: SubscriberReport = {
    subscribers: subscribers.length,
    delivered: arrivals.length / 2,
    atFinal: subscribers.filter(atFinal).length,
    latencyHistogram,
  };
  // A pipe's writes are asynchronous: exiting before this one is flushed would cut the report short.
  await new Promise((resolve) => process.stdout.write(`${JSON.stringify(report)}\n`, resolve));
  for (const close of closers) close();
  process.exit(0);
}

/** Takes one value; true once the subscriber holds a first value of each of its books. */
type Receive = (subscriber: Subscriber, bookId: string, purchaseCount: number) => boolean;

/** Resolves once the subscriber holds each of its books' first value (the counts as they stand); a refusal or a close ends the process. */
function graphqlSubscriber(url: string, subscriber: Subscriber, receive: Receive, closers: (() => void)[]): Promise<void> {
  const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
  closers.push(() => void client.dispose());
  return new Promise((resolve, reject) => {
    let ready = false;
    // Before it is ready a failure stops the process; after, it is said here and shows as a subscriber short of a final count.
    const fail = (error: Error) => (ready ? process.stderr.write(`subscriber-process: ${error.message}\n`) : reject(error));
    client.subscribe<{ bookSales: { databaseId: string; purchaseCount: number } }>(
      { query: BOOK_SALES, variables: { ids: subscriber.books } },
      {
        next: (value) => {
          if (!value.data) return void fail(new Error(`the API refused a subscriber: ${JSON.stringify(value.errors)}`));
          const { databaseId, purchaseCount } = value.data.bookSales;
          if (receive(subscriber, databaseId, purchaseCount) && !ready) {
            ready = true;
            resolve();
          }
        },
        error: (error) => void fail(new Error(`a subscription ended with an error: ${JSON.stringify(error)}`)),
        complete: () => void fail(new Error("the API completed a subscription it should have kept open")),
      },
    );
  });
}

/** The baseline's protocol: the socket names its books once (`{ ids }`), then each message is one book's count. */
function bareSubscriber(url: string, subscriber: Subscriber, receive: Receive, closers: (() => void)[]): Promise<void> {
  const socket = new WebSocket(url);
  closers.push(() => socket.terminate());
  return new Promise((resolve, reject) => {
    socket.once("open", () => socket.send(JSON.stringify({ ids: subscriber.books })));
    socket.on("message", (data) => {
      const { bookId, purchaseCount } = JSON.parse(String(data)) as { bookId: string; purchaseCount: number };
      if (receive(subscriber, bookId, purchaseCount)) resolve();
    });
    socket.once("error", reject);
  });
}

void main().catch((error: unknown) => {
  process.stderr.write(`subscriber-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
