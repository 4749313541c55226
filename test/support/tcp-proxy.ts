import { once } from "node:events";
import net, { type AddressInfo } from "node:net";
import { BSON, type Document } from "mongodb";

export interface TcpProxy {
  /** `target`'s URI with its host and port replaced by the proxy's. */
  uri: string;
  /** Ends every connection through the proxy and refuses new ones (connection refused), as a dead network path or host does. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
  /**
   * Resets (TCP RST) the client's connection right after passing it the reply to the next command `matches` picks,
   * before the client has read that reply: the client's next write on that connection fails in the kernel while
   * the driver still holds it for live, as when a network path drops between two commands. Resolves once done.
   */
  resetAfterReplyTo(matches: (command: Document) => boolean): Promise<void>;
}

const OP_MSG = 2013;

/** Whole wire messages out of a byte stream's chunks: each handed to `onMessage` once all its bytes have arrived. */
function wireMessages(onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
      const length = pending.readInt32LE(0);
      onMessage(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  };
}

/** An OP_MSG's command (its body section, which the driver sends first), or undefined for other messages. */
function commandOf(message: Buffer): Document | undefined {
  // Header (16 bytes), flag bits (4), then the first section's kind (0: body) and its document.
  if (message.readInt32LE(12) !== OP_MSG || message[20] !== 0) return undefined;
  return BSON.deserialize(message.subarray(21, 21 + message.readInt32LE(21)));
}

/**
 * A TCP proxy on loopback that a test cuts and restores: the database's outage as the API sees it,
 * without stopping the database. Each accepted connection is piped to `target`'s host and port; a cut
 * destroys both sides of every pair at once and closes the listening socket, so that new connections
 * are refused until `restore`.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const url = new URL(target);
  const upstream = { host: url.hostname, port: Number(url.port) };
  const sockets = new Set<net.Socket>();
  let armed: { matches: (command: Document) => boolean; done: () => void } | undefined;
  /** Watches one connection's commands and replies for the armed reset, after `pipe` has forwarded each chunk. */
  const watch = (client: net.Socket, server: net.Socket) => {
    let awaitedReply: number | undefined;
    client.on(
      "data",
      wireMessages((message) => {
        const command = commandOf(message);
        if (armed && awaitedReply === undefined && command && armed.matches(command)) awaitedReply = message.readInt32LE(4);
      }),
    );
    server.on(
      "data",
      wireMessages((message) => {
        if (awaitedReply === undefined || message.readInt32LE(8) !== awaitedReply) return;
        // The reply's bytes are already in the client's kernel buffer; the reset lands behind them.
        client.resetAndDestroy();
        server.destroy();
        const done = armed?.done;
        armed = undefined;
        done?.();
      }),
    );
  };
  const pipe = (client: net.Socket) => {
    const server = net.connect(upstream);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      // An error on one side ends both; the driver sees its connection reset.
      socket.on("error", () => {
        client.destroy();
        server.destroy();
      });
    }
    client.pipe(server).pipe(client);
    watch(client, server);
  };
  let listener = net.createServer(pipe);
  await once(listener.listen(0, "127.0.0.1"), "listening");
  const { port } = listener.address() as AddressInfo;
  url.host = `127.0.0.1:${port}`;
  let listening = true;

  const cut = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  const restore = async () => {
    if (listening) return;
    listener = net.createServer(pipe);
    await once(listener.listen(port, "127.0.0.1"), "listening");
    listening = true;
  };
  const resetAfterReplyTo = (matches: (command: Document) => boolean) =>
    new Promise<void>((done) => {
      armed = { matches, done };
    });
  return { uri: url.toString(), cut, restore, close: cut, resetAfterReplyTo };
}
