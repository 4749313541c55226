import { once } from "node:events";
import type { ClientRequestArgs } from "node:http";
import net from "node:net";
import { DEFAULT_SUBSCRIPTION_SETTINGS, type SubscriptionSettings } from "../../src/config";
import { UNREAD_CLOSE_CODE, unreadReason } from "../../src/graphql/limits/socket-bounds";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";
import { subscriptionsOpen, webSocketUrl } from "../support/subscriptions";
import WebSocket from "ws";
import { bearer, configuredTokens, tokenSpec } from "../support/tokens";

/** The bound under test: small, so that a few thousand pongs pass it once the kernel's buffers are full. */
const UNSENT_BYTES = 64 * 1024;
/** The largest frame the server writes here (an answer of 100 validation errors with their suggestions), past which no frame is written. */
const LARGEST_FRAME = 32 * 1024;

const sender = tokenSpec("bounds-sender", ["purchases:read"]);
const BOOK_SALES = `subscription ($ids: [ID!]!) { bookSales(ids: $ids) { databaseId purchaseCount } }`;
/** A subscription of 120 fields the schema lacks: answered with 100 validation errors, about 10 KB for 1 KB sent. */
const UNKNOWN_FIELDS = `subscription { bookSales(ids: ["1"]) { ${Array.from({ length: 120 }, (_, i) => `missing${i}`).join(" ")} } }`;

let database: TestDatabase;
let server: RunningServer;
/** The server's side of each WebSocket, as the upgrade hands it over: its unsent bytes are what the bound is about. */
const serverSides: net.Socket[] = [];
beforeAll(async () => {
  database = await openTestDatabase({ replicaSet: true });
  await seedBook(database.db, "1", customers(3));
  // Keep-alive's pings go unanswered by a client that does not read, and it would drop the socket (1006) on a machine slow
  // enough for the test to outlast its interval: an hour, so that only the bound under test closes it.
  const limits: SubscriptionSettings = {
    ...DEFAULT_SUBSCRIPTION_SETTINGS,
    unsentBytesPerConnection: UNSENT_BYTES,
    subscriptionKeepAliveSeconds: 3_600,
  };
  // A token with a budget no test spends: the refused subscriptions that fill the kernel's buffers each pay a refusal.
  server = await startTestHttpServer(database.db, {
    subscriptions: limits,
    apiTokens: configuredTokens(sender),
    clientBudget: { clientBudgetDocuments: 2_000, clientBudgetTokenDocuments: 1_000_000_000, clientBudgetSeconds: 4 },
  });
  server.httpServer.on("upgrade", (request: { socket: net.Socket }) => serverSides.push(request.socket));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A graphql-transport-ws client that stops reading once acknowledged, on a TCP socket of its own (ws's `createConnection`)
 * so that the test can tell when the server has read everything it sent.
 */
async function clientThatNeverReads() {
  let tcp: net.Socket | undefined;
  const socket = new WebSocket(webSocketUrl(server.url), "graphql-transport-ws", {
    createConnection: (options: ClientRequestArgs) => (tcp = net.connect(options as net.NetConnectOpts)),
  });
  const closed = once(socket, "close").then(([code, reason]) => ({ code: code as number, reason: String(reason) }));
  await once(socket, "open");
  const serverSide = serverSides.at(-1)!;
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  send({ type: "connection_init", payload: { authorization: bearer(sender) } });
  await once(socket, "message");
  socket.pause();
  /** The most bytes the server held unsent for this socket, as sampled while it read what was sent. */
  let largestUnsent = 0;
  /** Resolves once the server has read every byte sent so far and handled it (or dropped the socket). */
  const handled = async () => {
    await until(() => {
      largestUnsent = Math.max(largestUnsent, serverSide.writableLength);
      return serverSide.destroyed || (socket.bufferedAmount === 0 && serverSide.bytesRead >= tcp!.bytesWritten);
    });
    // graphql-ws answers a message a few promises after reading it, a subscription's errors after its checks.
    await new Promise((resolve) => setTimeout(resolve, 20));
    largestUnsent = Math.max(largestUnsent, serverSide.writableLength);
  };
  return { socket, serverSide, send, closed, handled, largestUnsent: () => largestUnsent };
}

describe(`a WebSocket that never reads holds at most ${UNSENT_BYTES} unsent bytes in the server (UNSENT_BYTES_PER_CONNECTION)`, () => {
  it("closes it with 1008 once pings, pongs and refused subscriptions leave more unread, and never holds more", async () => {
    const { socket, serverSide, send, closed, handled, largestUnsent } = await clientThatNeverReads();
    send({ id: "live", type: "subscribe", payload: { query: BOOK_SALES, variables: { ids: ["1"] } } });
    await subscriptionsOpen(server.url, "bookSales", 1);
    // First the kernel's buffers fill, with answers of errors (10 KB each), until the server starts to hold bytes itself.
    for (let i = 0; serverSide.writableLength === 0; i += 1) {
      send({ id: `bad-${i}`, type: "subscribe", payload: { query: UNKNOWN_FIELDS } });
      if (i % 50 === 49) await handled();
    }
    // Then pings of both protocols, whose pongs are all that grows the server's memory now, until the server holds
    // the bound, and as many again three times: a socket closing is written no more.
    for (let rounds = 0, past = 0; past < 3 && rounds < 40; rounds += 1) {
      for (let i = 0; i < 2_000; i += 1) send({ type: "ping" });
      // A few of the WebSocket protocol's own pings, whose pongs ws writes by itself: ws ends a peer with 60 of those
      // unwritten at once (its maxPendingAutoPongs) without a close frame, a bound of its own this test is not about.
      if (rounds === 0) for (let i = 0; i < 20; i += 1) socket.ping();
      await handled();
      if (largestUnsent() > UNSENT_BYTES) past += 1;
      expect(largestUnsent()).toBeLessThanOrEqual(UNSENT_BYTES + LARGEST_FRAME);
    }
    socket.resume();
    expect(await closed).toEqual({ code: UNREAD_CLOSE_CODE, reason: unreadReason(UNSENT_BYTES) });
    // The subscription ended with its socket.
    await subscriptionsOpen(server.url, "bookSales", 0);
  });
});
