import type { WebSocket } from "ws";

/** What the sweep uses of a socket. */
export type WatchedSocket = Pick<WebSocket, "on" | "once" | "ping" | "terminate" | "readyState" | "OPEN">;

/** What the sweep uses of the WebSocket server: each new socket. */
export interface SocketSource {
  on(event: "connection", listener: (socket: WatchedSocket) => void): unknown;
}

/** The sweeps in one keep-alive interval: a socket idle for the interval is pinged within a tenth of it. */
const TICKS_PER_INTERVAL = 10;
/**
 * A socket only written to is pinged every this many intervals all the same: writes that the kernel takes say nothing
 * of whether the peer is still there, and only its pong (or a message) does.
 */
export const HEARD_WITHIN_INTERVALS = 3;

/** What the sweep knows of one socket, in ticks of its clock. */
export class SocketTraffic {
  /** The tick of the last frame sent or received. */
  lastTraffic: number;
  /** The tick of the last frame received: the peer's last sign of life. */
  lastHeard: number;
  /** The tick of the ping that awaits its pong; -1 when none does. */
  pingedAt = -1;

  constructor(private readonly keepAlive: KeepAlive) {
    this.lastTraffic = keepAlive.tick;
    this.lastHeard = keepAlive.tick;
  }

  /** A frame went out: a load balancer saw the socket busy now. */
  seen(): void {
    this.lastTraffic = this.keepAlive.tick;
  }

  /** A frame came in: the socket is busy, and its peer is there. */
  heard(): void {
    this.lastTraffic = this.keepAlive.tick;
    this.lastHeard = this.keepAlive.tick;
  }
}

/**
 * Keep-alive pings for the subscriptions' sockets, only for those that neither sent nor received a frame within the
 * interval: a load balancer cuts a socket it sees idle, and a socket carrying values is not idle. A socket only written
 * to is still pinged every HEARD_WITHIN_INTERVALS intervals, since nothing else tells that its peer is there. A ping
 * answered by no pong within the interval drops the socket, as graphql-ws's own keep-alive does.
 *
 * One process-wide timer ticks ten times an interval and looks at every socket's last tick, where graphql-ws's
 * `useServer` keeps a timer and pings each socket every interval, however busy: at 10,000 sockets and 20 s, 500 pings
 * and pongs a second beside the values (docs/benchmarks/analysis.md, "The measuring instrument's cost per value, the
 * delivered count, keep-alive pings"). Sockets are counted busy by the `next` frames written for them (`SocketFrames`)
 * and every frame they send; graphql-ws's other messages (acks, errors, `complete`) are not counted, which can only
 * cost a ping that was not needed.
 */
export class KeepAlive {
  /** Ticks since the start: the clock every socket's traffic is read on. */
  tick = 0;
  private readonly sockets = new Map<WatchedSocket, SocketTraffic>();
  private readonly timer: NodeJS.Timeout;

  constructor(webSocketServer: SocketSource, intervalMs: number) {
    webSocketServer.on("connection", (socket) => this.watch(socket));
    this.timer = setInterval(() => this.sweep(), intervalMs / TICKS_PER_INTERVAL);
    // The sockets keep the process alive while they are open; the sweep alone must not.
    this.timer.unref();
  }

  /** The socket's traffic, for the frames written for it; undefined once it is closed. */
  trafficOf(socket: WatchedSocket): SocketTraffic | undefined {
    return this.sockets.get(socket);
  }

  /** Stops the sweep: the server is draining, and its sockets are being closed. */
  stop(): void {
    clearInterval(this.timer);
  }

  private watch(socket: WatchedSocket): void {
    const traffic = new SocketTraffic(this);
    this.sockets.set(socket, traffic);
    socket.on("message", () => traffic.heard());
    socket.on("pong", () => {
      traffic.pingedAt = -1;
      traffic.heard();
    });
    socket.once("close", () => this.sockets.delete(socket));
  }

  private sweep(): void {
    this.tick += 1;
    for (const [socket, traffic] of this.sockets) {
      if (traffic.pingedAt >= 0) {
        if (this.tick - traffic.pingedAt >= TICKS_PER_INTERVAL) socket.terminate();
      } else if (this.due(traffic) && socket.readyState === socket.OPEN) {
        traffic.pingedAt = this.tick;
        traffic.seen();
        socket.ping();
      }
    }
  }

  /** Idle for an interval, or not heard from in HEARD_WITHIN_INTERVALS. */
  private due(traffic: SocketTraffic): boolean {
    return (
      this.tick - traffic.lastTraffic >= TICKS_PER_INTERVAL || this.tick - traffic.lastHeard >= HEARD_WITHIN_INTERVALS * TICKS_PER_INTERVAL
    );
  }
}
