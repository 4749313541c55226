import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { freePort } from "../support/http";

const ROOT = join(__dirname, "..", "..");

interface RunningProcess {
  child: ChildProcess;
  port: number;
  /** Resolves with the first log line whose message matches. */
  logged(message: RegExp): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

const databaseNames: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  // A failed assertion must not leave a server running past the test.
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});
afterAll(async () => {
  const client = await MongoClient.connect(process.env.TEST_MONGODB_URI!);
  for (const name of databaseNames) await client.db(name).dropDatabase();
  await client.close();
});

/** `npm start` as operators run it, on the test database (MONGODB_URI set, so no demo data is loaded). */
async function startApi(): Promise<RunningProcess> {
  const port = await freePort();
  const database = `test_${randomBytes(6).toString("hex")}`;
  databaseNames.push(database);
  const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "src", "cli", "start.ts")], {
    env: { ...process.env, MONGODB_URI: process.env.TEST_MONGODB_URI, MONGODB_DB: database, PORT: String(port), NODE_ENV: "development", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiting: { message: RegExp; resolve: (line: Record<string, unknown>) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    for (const waiter of waiting.filter(({ message }) => message.test(String(line.msg)))) waiter.resolve(line);
  });
  const logged = (message: RegExp) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const earlier = lines.find((line) => message.test(String(line.msg)));
      if (earlier) resolve(earlier);
      else waiting.push({ message, resolve });
    });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  await logged(/ready at/);
  return { child, port, logged, exited };
}

/** Sends a request's headers and waits for the server's 100 Continue: from then on the request is in flight. */
async function openRequest(port: number, body: string) {
  const request = http.request({
    port,
    path: "/graphql",
    method: "POST",
    agent: false,
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), expect: "100-continue", "x-request-id": "in-flight" },
  });
  const response = new Promise<http.IncomingMessage>((resolve) => request.once("response", resolve)).then(async (incoming) => {
    let text = "";
    for await (const chunk of incoming) text += String(chunk);
    return { status: incoming.statusCode, body: JSON.parse(text) as unknown };
  });
  request.flushHeaders();
  await once(request, "continue");
  return { finish: () => request.end(body), response };
}

async function refusesConnections(port: number): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const socket = net.connect(port, "127.0.0.1");
    const outcome = await new Promise((resolve) => {
      socket.once("connect", () => resolve("accepted"));
      socket.once("error", () => resolve("refused"));
    });
    socket.destroy();
    if (outcome === "refused") return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe("graceful shutdown of npm start", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "on %s stops accepting connections, finishes the request in flight, closes the database and exits 0",
    async (signal) => {
      const api = await startApi();
      const inFlight = await openRequest(api.port, JSON.stringify({ query: "{ books(first: 1) { totalCount } }" }));

      api.child.kill(signal);
      await api.logged(new RegExp(`^${signal}: no longer accepting connections`));
      expect(await refusesConnections(api.port)).toBe(true);

      inFlight.finish();
      expect(await inFlight.response).toEqual({ status: 200, body: { data: { books: { totalCount: 0 } } } });
      expect(await api.logged(/^graphql request$/)).toMatchObject({ requestId: "in-flight", errors: 0 });
      await api.logged(/^shutdown complete$/);
      expect(await api.exited).toBe(0);
    },
  );
});
