import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { MongoClient } from "mongodb";
import { freePort } from "./http";

const ROOT = join(__dirname, "..", "..");

export type LogLine = Record<string, unknown>;

export interface ApiProcess {
  child: ChildProcess;
  /** The API's GraphQL endpoint. */
  url: string;
  /** Resolves with the first log line whose message matches and that `where` accepts, waiting for it if need be. */
  logged(message: RegExp, where?: (line: LogLine) => boolean): Promise<LogLine>;
  /** SIGTERM, as a supervisor stops it; resolves with its exit status, then drops its database. */
  stop(): Promise<number | null>;
  /** The lines of its stderr that `keepStderr` matched (none unless it was given; otherwise stderr goes to the test's). */
  stderr: string[];
}

/**
 * Runs `script` (a TypeScript entry, as `npm start` runs src/cli/start.ts) on a database of its own on
 * the run's server (MONGODB_URI set, so no demo data), on a free port, with `env` added; resolves once
 * it says it is ready. `ipc` opens a channel to it (for scripts that answer messages).
 */
export async function startApiProcess(
  script: string,
  env: Record<string, string> = {},
  { ipc = false, keepStderr }: { ipc?: boolean; keepStderr?: RegExp } = {},
): Promise<ApiProcess> {
  const port = await freePort();
  const database = `test_${randomBytes(6).toString("hex")}`;
  // Kept stderr goes to a file, read once the process has ended: a process writes a pipe asynchronously, and
  // what a busy machine has not read from it by the exit is lost (Node's module debug output runs to a million lines).
  const stderrFile = keepStderr ? join(mkdtempSync(join(tmpdir(), "api-stderr-")), "stderr") : undefined;
  const stderrFd = stderrFile ? openSync(stderrFile, "w") : undefined;
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, MONGODB_URI: process.env.TEST_MONGODB_URI, MONGODB_DB: database, PORT: String(port), LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", stderrFd ?? "inherit", ...(ipc ? ["ipc" as const] : [])],
  });
  if (stderrFd !== undefined) closeSync(stderrFd);
  const stderr: string[] = [];
  const exited = once(child, "exit").then(async ([code]) => {
    if (stderrFile && keepStderr) {
      for await (const line of createInterface({ input: createReadStream(stderrFile) })) if (keepStderr.test(line)) stderr.push(line);
      rmSync(join(stderrFile, ".."), { recursive: true, force: true });
    }
    return code as number | null;
  });
  const lines: LogLine[] = [];
  const waiting: { matches: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    // pino's lines only: npm's own, and the console span exporter's multi-line objects, are not JSON lines.
    if (!text.startsWith('{"')) return;
    const line = JSON.parse(text) as LogLine;
    lines.push(line);
    for (const waiter of waiting.filter(({ matches }) => matches(line))) waiter.resolve(line);
  });
  const logged = (message: RegExp, where: (line: LogLine) => boolean = () => true) =>
    new Promise<LogLine>((resolve) => {
      const matches = (line: LogLine) => message.test(String(line.msg)) && where(line);
      const earlier = lines.find(matches);
      if (earlier) resolve(earlier);
      else waiting.push({ matches, resolve });
    });
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    const status = await exited;
    const client = await MongoClient.connect(process.env.TEST_MONGODB_URI!);
    await client.db(database).dropDatabase();
    await client.close();
    return status;
  };
  const ready = await Promise.race([logged(/ready at/), exited]);
  if (typeof ready !== "object" || ready === null) throw new Error(`${script} exited with ${String(ready)} before it was ready`);
  // As a load balancer does: "ready at" is logged once the port listens, and on a busy machine the first attempt to
  // reach the database may still be failing (every request answered DATABASE_UNAVAILABLE), which /readyz says.
  await untilReady(`http://127.0.0.1:${port}/readyz`, exited);
  return { child, url: `http://127.0.0.1:${port}/graphql`, logged, stop, stderr };
}

const READY_POLL_MS = 100;

/** Resolves once `readyz` answers 200; rejects if the process exits first. */
async function untilReady(readyz: string, exited: Promise<number | null>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`the API process exited before ${readyz} answered 200`);
    const status = await fetch(readyz).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
}
