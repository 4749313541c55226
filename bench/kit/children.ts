import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type autocannon from "autocannon";

/** The bench's child processes (servers, the stand-in, load generators): starting them, loading them, reading their counters and CPU. */

const ROOT = join(__dirname, "..", "..");
// Far longer than a request takes, even at p99 under load.
export const SETTLE_MS = 1_000;

export interface Child {
  /** The first line the child printed: the address it serves. */
  firstLine: string;
  pid: number;
  /** Sends the child a signal (the profiler's SIGUSR2). */
  signal(name: NodeJS.Signals): void;
  /** Sends a message over the IPC channel (started with `ipc`) and resolves with the child's next message. */
  ask(message: string): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * Starts `script` (a path from the repository's root) under tsx, after `nodeOptions` (such as another `--import`), and waits
 * for its first line; with `ipc`, a channel to it is open for `ask`.
 */
export async function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeOptions: string[] = [],
  { ipc = false } = {},
): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", ...nodeOptions, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit", ...(ipc ? ["ipc" as const] : [])],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`${script} exited with ${String(code)} before it was ready`);
  });
  const [firstLine] = (await Promise.race([once(lines, "line"), exited])) as [string];
  lines.close();
  exited.catch(() => {});
  const ask = async (message: string) => {
    if (!child.send) throw new Error(`${script} was started without an IPC channel`);
    const answer = once(child, "message");
    child.send(message);
    return ((await answer) as [unknown])[0];
  };
  return { firstLine, pid: child.pid ?? 0, signal: (name) => void child.kill(name), ask, stop };
}

/** One load from autocannon in a process of its own (`processes/load-process.ts`); `authorization` is sent as the Authorization header. */
export async function loadFromChild(
  url: string,
  body: string,
  connections: number,
  seconds: number,
  authorization = "",
): Promise<autocannon.Result> {
  const args = [url, body, String(connections), String(seconds), authorization];
  const child = spawn(process.execPath, ["--import", "tsx", "bench/processes/load-process.ts", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const chunks: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as autocannon.Result;
}

/** Every command the API has sent so far, from its Prometheus counter. */
export async function commandsSent(url: string): Promise<number> {
  const text = await (await fetch(url.replace(/\/graphql$/, "/metrics"))).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("bookstore_mongodb_commands_total"))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

export async function scrapeCost(url: string): Promise<number> {
  const first = await commandsSent(url);
  return (await commandsSent(url)) - first;
}

// Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ), the same on every architecture it runs on.
const TICKS_PER_SECOND = 100;

/** CPU time the process has used so far, user and system, all its threads, from /proc; NaN where there is none (or no process). */
export function cpuMsOf(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    // The command name, in parentheses, may hold spaces: the fields are counted from after it.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
