import { EventEmitter } from "node:events";
import { HEARD_WITHIN_INTERVALS, KeepAlive, type SocketSource, type WatchedSocket } from "../../src/graphql/transport/keep-alive";

const INTERVAL_MS = 20_000;

/** A socket as the sweep sees it: it counts the pings it is sent, answers them when told to, and can be dropped. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState: number = this.OPEN;
  pings = 0;
  terminated = false;

  constructor(private readonly answers: boolean) {
    super();
  }

  ping(): void {
    this.pings += 1;
    if (this.answers) queueMicrotask(() => this.emit("pong"));
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
    this.emit("close");
  }
}

function watched(answers = true) {
  const server = new EventEmitter();
  const keepAlive = new KeepAlive(server as SocketSource, INTERVAL_MS);
  const socket = new FakeSocket(answers);
  server.emit("connection", socket);
  const traffic = keepAlive.trafficOf(socket as unknown as WatchedSocket)!;
  return { keepAlive, socket, traffic };
}

/** Lets the timers run for `ms`, a tenth of the interval at a time, with `during` after each step. */
async function pass(ms: number, during: () => void = () => {}): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += INTERVAL_MS / 10) {
    await jest.advanceTimersByTimeAsync(INTERVAL_MS / 10);
    during();
  }
}

describe("keep-alive pings of the subscriptions' sockets", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("pings an idle socket once an interval, so that a load balancer never sees it idle longer", async () => {
    const { keepAlive, socket } = watched();
    await pass(INTERVAL_MS - INTERVAL_MS / 10);
    expect(socket.pings).toBe(0);
    await pass(INTERVAL_MS / 10);
    expect(socket.pings).toBe(1);
    await pass(3 * INTERVAL_MS);
    expect(socket.pings).toBe(4);
    expect(socket.terminated).toBe(false);
    keepAlive.stop();
  });

  it("sends no ping to a socket that had a value written within each interval, and pings it an interval after its last", async () => {
    const { keepAlive, socket, traffic } = watched();
    await pass(HEARD_WITHIN_INTERVALS * INTERVAL_MS - INTERVAL_MS / 10, () => traffic.seen());
    expect(socket.pings).toBe(0);
    await pass(INTERVAL_MS);
    expect(socket.pings).toBe(1);
    keepAlive.stop();
  });

  it("pings a socket it only writes to once every few intervals, since only an answer tells that its peer is there", async () => {
    const { keepAlive, socket, traffic } = watched();
    await pass(4 * HEARD_WITHIN_INTERVALS * INTERVAL_MS, () => traffic.seen());
    expect(socket.pings).toBe(4);
    expect(socket.terminated).toBe(false);
    keepAlive.stop();
  });

  it("sends no ping to a socket whose client sent a message within each interval", async () => {
    const { keepAlive, socket } = watched();
    await pass(5 * INTERVAL_MS, () => socket.emit("message", Buffer.from('{"type":"pong"}'), false));
    expect(socket.pings).toBe(0);
    keepAlive.stop();
  });

  it("drops a socket that answers no ping within the interval, busy or not", async () => {
    const { keepAlive, socket, traffic } = watched(false);
    await pass(INTERVAL_MS);
    expect(socket.pings).toBe(1);
    // Values still written after the ping do not keep a socket whose peer answers nothing.
    await pass(INTERVAL_MS - INTERVAL_MS / 10, () => traffic.seen());
    expect(socket.terminated).toBe(false);
    await pass(INTERVAL_MS / 10);
    expect(socket.terminated).toBe(true);
    expect(keepAlive.trafficOf(socket as unknown as WatchedSocket)).toBeUndefined();
    keepAlive.stop();
  });
});
