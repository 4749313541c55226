import { once } from "node:events";
import net, { type AddressInfo } from "node:net";

export interface TcpProxy {
  /** `target`'s URI with its host and port replaced by the proxy's. */
  uri: string;
  /** Ends every connection through the proxy and refuses new ones (connection refused), as a dead network path or host does. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
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
  return { uri: url.toString(), cut, restore, close: cut };
}
