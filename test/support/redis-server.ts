import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./http";

/**
 * A redis-server of the test's own, Debian's from PATH, on a free loopback port: unlike the Redis that
 * TEST_REDIS_URL names, which other tests share, the test may stop it, start it again on the same port,
 * and freeze it (SIGSTOP) as a Redis whose host stalls.
 */
export interface OwnRedis {
  readonly url: string;
  /** Stops the server (SIGKILL, as a crash) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty, and waits until it answers. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing is answered. */
  freeze(): void;
  /** SIGCONT: it answers again, what it was sent meanwhile first. */
  thaw(): void;
  /** Thaws and stops it, whatever state a failed test left it in. */
  close(): Promise<void>;
}

// Debian's redis-server starts in milliseconds; this is for a machine busy with other work.
const START_TIMEOUT_MS = 15_000;

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await spawnRedis(port);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, "exit");
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    freeze: () => void child?.kill("SIGSTOP"),
    thaw: () => void child?.kill("SIGCONT"),
    close: async () => {
      child?.kill("SIGCONT");
      await stop();
    },
  };
}

async function spawnRedis(port: number): Promise<ChildProcess> {
  // No persistence: each start is empty, and nothing is written to disk.
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_resolve, reject) => {
    child.once("error", (error) =>
      reject(new Error(`could not start redis-server (${error.message}): install Debian's redis-server (apt-get install redis-server)`)),
    );
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code} before answering:\n${output}`)));
  });
  // The promise is raced until Redis answers; after that an exit is the test's own doing.
  failed.catch(() => {});
  await Promise.race([waitUntilAnswering(port), failed]);
  return child;
}

async function waitUntilAnswering(port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${START_TIMEOUT_MS} ms`);
    await sleep(50);
  }
}

/** Whether a Redis on `port` answers PING, over a connection of its own. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once("data", (data) => {
      resolve(data.toString().startsWith("+PONG"));
      socket.destroy();
    });
    socket.once("error", () => resolve(false));
    socket.once("close", () => resolve(false));
  });
}
