import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout } from "node:timers/promises";
import { GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType, stringifyMessage, type Message } from "graphql-ws";
import WebSocket from "ws";
import { subscribedBooks, type MixBooks } from "../scenarios/subscriber-mix";
import { Arrivals } from "./arrivals";

/**
 * Subscribers in a process of their own, each on a WebSocket of its own as each shopper's page is: `graphql`
 * subscribes over graphql-transport-ws to `bookSales` of the books its place in the mix names (one book's page, or a
 * shelf of several), as the web storefront would; `bare` asks the baseline for the same books and reads its plain
 * messages. Arguments: url, graphql|bare, the first subscriber's number in the mix, count, the books (JSON `MixBooks`).
 *
 * Prints `ready` once every subscriber holds each of its books' first value; then reads `go` from stdin when the
 * purchases start, and one more line (`SubscriberWrites`: each book's final count, and the write time of each value by
 * `valueKey`), waits until every subscriber has seen each of its books' final count (or a minute has passed), and
 * prints what it received as JSON (`SubscriberReport`). Started with bench/processes/profiler.ts and BENCH_CPU_PROFILE,
 * it profiles itself from `go` until then.
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
  /** This process's CPU time (user and system) from `go` until every subscriber had its final counts: the load's own cost. */
  cpuMs: number;
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

/**
 * The load's sockets skip ws's UTF-8 check of each frame: `JSON.parse` of a frame that was not UTF-8 fails or yields a
 * count the final-count check refuses, so the check adds nothing the report does not already catch, and it was CPU
 * taken from the API on the cores they share (docs/benchmarks/analysis.md, "The measuring instrument's cost per value").
 */
const LOAD_SOCKET: WebSocket.ClientOptions = { skipUTF8Validation: true };

const now = () => performance.timeOrigin + performance.now();
/** Set once the report is written: the sockets are closed on purpose. */
let finished = false;

async function main(): Promise<void> {
  const [url, protocol, fromText, countText, booksText] = process.argv.slice(2);
  const [from, count] = [Number(fromText), Number(countText)];
  if (!url || (protocol !== "graphql" && protocol !== "bare") || !Number.isInteger(from) || !Number.isInteger(count) || !booksText) {
    throw new Error("usage: subscriber-process URL graphql|bare FROM COUNT BOOKS_JSON");
  }
  const books = JSON.parse(booksText) as MixBooks;
  const arrivals = new Arrivals([books.hot, ...books.quiet]);
  const receive: Receive = (subscriber, bookId, purchaseCount) => {
    const last = subscriber.last.get(bookId);
    // The same count again is the book's flag changing (hasExtras), which no purchase of the schedule brought as a value of its own.
    if (last !== undefined && last !== purchaseCount) arrivals.add(bookId, purchaseCount, now());
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
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  await lines.next();
  const cpuBefore = process.cpuUsage();
  toggleProfiler();
  const { finals, writtenAt } = JSON.parse(((await lines.next()).value as string | undefined) ?? "{}") as SubscriberWrites;
  const atFinal = (subscriber: Subscriber) => subscriber.books.every((bookId) => subscriber.last.get(bookId) === finals[bookId]);
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  while (!subscribers.every(atFinal) && Date.now() < deadline) await setTimeout(50);
  const cpu = process.cpuUsage(cpuBefore);
  await profileSaved();
  const report: SubscriberReport = {
    subscribers: subscribers.length,
    delivered: arrivals.size,
    atFinal: subscribers.filter(atFinal).length,
    latencyHistogram: arrivals.latencyHistogram(writtenAt),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  // A pipe's writes are asynchronous: exiting before this one is flushed would cut the report short.
  await new Promise((resolve) => process.stdout.write(`${JSON.stringify(report)}\n`, resolve));
  finished = true;
  for (const close of closers) close();
  process.exit(0);
}

const PROFILE = process.env["BENCH_CPU_PROFILE"];

/** Starts or stops bench/processes/profiler.ts, when it was loaded, as the bench's SIGUSR2 does for the servers. */
function toggleProfiler(): void {
  if (PROFILE) process.kill(process.pid, "SIGUSR2");
}

/** Stops the profiler and waits until it has written its profile. */
async function profileSaved(): Promise<void> {
  if (!PROFILE) return;
  toggleProfiler();
  while (!existsSync(PROFILE)) await setTimeout(50);
}

/** Takes one value; true once the subscriber holds a first value of each of its books. */
type Receive = (subscriber: Subscriber, bookId: string, purchaseCount: number) => boolean;

/**
 * Resolves once the subscriber holds each of its books' first value (the counts as they stand); a refusal or a close
 * ends the process. The subscription goes over the wire as graphql-ws's client sends it (`connection_init`, its ack,
 * one `subscribe`, then `next` messages), with graphql-ws's own message functions on a bare `ws` socket: its client's
 * connection machinery (lazy connecting, retries, listeners by event and by id) cost this process more CPU for each
 * value received than the API spent sending it, CPU taken from the API on a machine they share
 * (docs/benchmarks/analysis.md, "The load processes"). A value's arrival is taken when its message is read, as before.
 * Messages are read with `JSON.parse` alone, not graphql-ws's `parseMessage`, whose check of every message's shape is
 * the conformance tests' job (test/api/subscriptions-protocol.test.ts), not the measuring instrument's: what this process
 * checks (each value's book and count, every subscriber at its final counts) it still reads from each message.
 */
function graphqlSubscriber(url: string, subscriber: Subscriber, receive: Receive, closers: (() => void)[]): Promise<void> {
  const socket = new WebSocket(url, GRAPHQL_TRANSPORT_WS_PROTOCOL, LOAD_SOCKET);
  closers.push(() => socket.terminate());
  return new Promise((resolve, reject) => {
    let ready = false;
    // Before it is ready a failure stops the process; after, it is said here and shows as a subscriber short of a final count.
    const fail = (error: Error) => (ready ? process.stderr.write(`subscriber-process: ${error.message}\n`) : reject(error));
    const send = (message: Parameters<typeof stringifyMessage>[0]) => socket.send(stringifyMessage(message));
    socket.once("open", () => send({ type: MessageType.ConnectionInit }));
    socket.on("message", (data) => {
      const message = JSON.parse(String(data as Buffer)) as Message;
      switch (message.type) {
        case MessageType.ConnectionAck:
          return send({ id: "1", type: MessageType.Subscribe, payload: { query: BOOK_SALES, variables: { ids: subscriber.books } } });
        case MessageType.Next: {
          const value = message.payload as { data?: { bookSales: { databaseId: string; purchaseCount: number } }; errors?: unknown };
          if (!value.data) return void fail(new Error(`the API refused a subscriber: ${JSON.stringify(value.errors)}`));
          const { databaseId, purchaseCount } = value.data.bookSales;
          if (receive(subscriber, databaseId, purchaseCount) && !ready) {
            ready = true;
            resolve();
          }
          return;
        }
        case MessageType.Ping:
          return send({ type: MessageType.Pong });
        case MessageType.Error:
          return void fail(new Error(`a subscription ended with an error: ${JSON.stringify(message.payload)}`));
        case MessageType.Complete:
          return void fail(new Error("the API completed a subscription it should have kept open"));
        default:
          return;
      }
    });
    socket.once("error", (error) => fail(error));
    socket.once("close", (code, reason) => !finished && fail(new Error(`the API closed a subscriber's socket: ${code} ${String(reason)}`)));
  });
}

/** The baseline's protocol: the socket names its books once (`{ ids }`), then each message is one book's count. */
function bareSubscriber(url: string, subscriber: Subscriber, receive: Receive, closers: (() => void)[]): Promise<void> {
  const socket = new WebSocket(url, LOAD_SOCKET);
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
