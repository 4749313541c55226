import { once } from "node:events";
import { createInterface } from "node:readline";
import { createClient } from "graphql-ws";
import WebSocket from "ws";

/**
 * Subscribers in a process of their own, each on a WebSocket of its own as each shopper's page is: `graphql`
 * subscribes with graphql-ws to `bookSales` of one book, as the web storefront would; `bare` reads the
 * baseline's plain messages. Arguments: url, graphql|bare, count, book id.
 *
 * Prints `ready` once every subscriber holds its first value; then reads one line from stdin, the purchases'
 * write times by the count each brought (`{ final, writtenAt: { [count]: ms } }`), waits until every subscriber
 * has seen the final count (or a minute has passed), and prints what it received as JSON (`SubscriberReport`).
 */

export interface SubscriberReport {
  subscribers: number;
  /** Values received after the first, each a count a purchase brought. */
  delivered: number;
  /** Subscribers whose last value was the final count. */
  atFinal: number;
  /** Delivery latencies, from the purchase's write to the value's arrival, in 0.1 ms buckets: bucket → values. */
  latencyHistogram: Record<string, number>;
}

interface Subscriber {
  last: number;
}

// Opened a batch at a time, so that thousands of handshakes do not all wait on the API at once past connection_init's limit.
const BATCH = 100;
const SETTLE_LIMIT_MS = 60_000;
const BOOK_SALES = `subscription BenchBookSales($ids: [ID!]!) { bookSales(ids: $ids) { id purchaseCount } }`;

const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const [url, protocol, countText, bookId] = process.argv.slice(2);
  const count = Number(countText);
  if (!url || (protocol !== "graphql" && protocol !== "bare") || !Number.isInteger(count) || !bookId) {
    throw new Error("usage: subscriber-process URL graphql|bare COUNT BOOK_ID");
  }
  // Every value after the first, as [count, arrival]: the latencies are worked out once the write times are known.
  const arrivals: number[] = [];
  const receive = (subscriber: Subscriber, purchaseCount: number, first: boolean) => {
    if (!first) arrivals.push(purchaseCount, now());
    subscriber.last = purchaseCount;
  };
  const subscribers: Subscriber[] = [];
  const closers: (() => void)[] = [];
  for (let opened = 0; opened < count; opened += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - opened) }, () => {
      const subscriber = { last: -1 };
      subscribers.push(subscriber);
      return protocol === "graphql"
        ? graphqlSubscriber(url, bookId, subscriber, receive, closers)
        : bareSubscriber(url, subscriber, receive, closers);
    });
    await Promise.all(batch);
  }
  process.stdout.write("ready\n");
  const [line] = (await once(createInterface({ input: process.stdin }), "line")) as [string];
  const { final, writtenAt } = JSON.parse(line) as { final: number; writtenAt: Record<string, number> };
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  while (subscribers.some((subscriber) => subscriber.last < final) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const latencyHistogram: Record<string, number> = {};
  for (let index = 0; index < arrivals.length; index += 2) {
    const written = writtenAt[String(arrivals[index])];
    if (written === undefined) continue;
    const bucket = String(Math.max(0, Math.round((arrivals[index + 1]! - written) * 10)));
    latencyHistogram[bucket] = (latencyHistogram[bucket] ?? 0) + 1;
  }
  const report: SubscriberReport = {
    subscribers: subscribers.length,
    delivered: arrivals.length / 2,
    atFinal: subscribers.filter((subscriber) => subscriber.last === final).length,
    latencyHistogram,
  };
  // A pipe's writes are asynchronous: exiting before this one is flushed would cut the report short.
  await new Promise((resolve) => process.stdout.write(`${JSON.stringify(report)}\n`, resolve));
  for (const close of closers) close();
  process.exit(0);
}

type Receive = (subscriber: Subscriber, purchaseCount: number, first: boolean) => void;

/** Resolves with the subscriber's first value (the count as it stands); a refusal or a close ends the process. */
function graphqlSubscriber(url: string, bookId: string, subscriber: Subscriber, receive: Receive, closers: (() => void)[]): Promise<void> {
  const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
  closers.push(() => void client.dispose());
  return new Promise((resolve, reject) => {
    let first = true;
    // Before the first value a failure stops the process; after it, it is said here and shows as a subscriber short of the final count.
    const fail = (error: Error) => (first ? reject(error) : process.stderr.write(`subscriber-process: ${error.message}\n`));
    client.subscribe<{ bookSales: { purchaseCount: number } }>(
      { query: BOOK_SALES, variables: { ids: [bookId] } },
      {
        next: (value) => {
          if (!value.data) return void fail(new Error(`the API refused a subscriber: ${JSON.stringify(value.errors)}`));
          receive(subscriber, value.data.bookSales.purchaseCount, first);
          if (first) resolve();
          first = false;
        },
        error: (error) => void fail(new Error(`a subscription ended with an error: ${JSON.stringify(error)}`)),
        complete: () => void fail(new Error("the API completed a subscription it should have kept open")),
      },
    );
  });
}

function bareSubscriber(url: string, subscriber: Subscriber, receive: Receive, closers: (() => void)[]): Promise<void> {
  const socket = new WebSocket(url);
  closers.push(() => socket.terminate());
  return new Promise((resolve, reject) => {
    let first = true;
    socket.on("message", (data) => {
      receive(subscriber, (JSON.parse(String(data)) as { purchaseCount: number }).purchaseCount, first);
      if (first) resolve();
      first = false;
    });
    socket.once("error", reject);
  });
}

void main().catch((error: unknown) => {
  process.stderr.write(`subscriber-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
