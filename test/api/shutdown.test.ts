import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { freePort } from "../support/http";
import { tokenSpec } from "../support/tokens";

const ROOT = join(__dirname, "..", "..");

interface RunningProcess {
  child: ChildProcess;
  port: number;
  /** Resolves with the first log line whose message matches. */
  logged(message: RegExp): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** How operators start the API: what a supervisor runs, and so the one process it holds and signals. */
interface Launcher {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const databaseNames: string[] = [];
const children: ChildProcess[] = [];
// The compiled build the production command runs, in a folder of the tests' own beside src/ (so the build finds schema.graphql where dist/ does).
const buildDir = mkdtempSync(join(ROOT, ".test-build-"));
beforeAll(async () => {
  // --noCheck emits the same files as `npm run build` (checked byte for byte) in a fifth of the time:
  // the types are `npm run typecheck`'s to check, and this test needs only the JavaScript.
  const build = spawn(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json"), "--outDir", buildDir, "--noCheck"],
    {
      stdio: "inherit",
    },
  );
  const [status] = await once(build, "exit");
  expect(status).toBe(0);
});
afterEach(() => {
  // A failed assertion must not leave a server running past the test: kill its whole process group.
  for (const child of children.splice(0)) if (isGroupAlive(child.pid!)) process.kill(-child.pid!, "SIGKILL");
});
afterAll(async () => {
  rmSync(buildDir, { recursive: true, force: true });
  const client = await MongoClient.connect(process.env.TEST_MONGODB_URI!);
  for (const name of databaseNames) await client.db(name).dropDatabase();
  await client.close();
});

/**
 * True while any process of the group `leader` started is left running, its children included (they
 * inherit the group). A zombie does not count: it has exited and only waits for init to collect it, as
 * tsx's esbuild service, handed to init when tsx exits, sometimes still did when the test looked.
 */
function isGroupAlive(leader: number): boolean {
  return execFileSync("ps", ["-A", "-o", "pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .some(([group, state]) => Number(group) === leader && !state?.startsWith("Z"));
}

const launchers: Record<string, Launcher> = {
  "npm start": { command: "npm", args: ["start", "--silent"], env: { NODE_ENV: "development" } },
  "the production command": {
    command: process.execPath,
    args: ["--enable-source-maps", join(buildDir, "cli", "start.js")],
    env: { NODE_ENV: "production", API_TOKENS: JSON.stringify([tokenSpec("shutdown", ["purchases:read"])]) },
  },
};

/** Starts the API as `launcher` does, on the test database (MONGODB_URI set, so no demo data is loaded), in a process group of its own. */
async function startApi({ command, args, env }: Launcher): Promise<RunningProcess> {
  const port = await freePort();
  const database = `test_${randomBytes(6).toString("hex")}`;
  databaseNames.push(database);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, MONGODB_URI: process.env.TEST_MONGODB_URI, MONGODB_DB: database, PORT: String(port), LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiting: { message: RegExp; resolve: (line: Record<string, unknown>) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    if (!text.startsWith("{")) return; // npm's own lines
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
    headers: {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      expect: "100-continue",
      "x-request-id": "in-flight",
    },
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

describe.each(Object.keys(launchers))("graceful shutdown of %s", (launcher) => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "on %s to the process it leaves, stops accepting connections, finishes the request in flight, closes the database, exits 0 and leaves no process",
    async (signal) => {
      const api = await startApi(launchers[launcher]!);
      const inFlight = await openRequest(api.port, JSON.stringify({ query: "{ books(first: 1) { totalCount } }" }));

      api.child.kill(signal);
      await api.logged(new RegExp(`^${signal}: no longer accepting connections`));
      expect(await refusesConnections(api.port)).toBe(true);

      inFlight.finish();
      expect(await inFlight.response).toEqual({ status: 200, body: { data: { books: { totalCount: 0 } } } });
      expect(await api.logged(/^graphql request$/)).toMatchObject({ requestId: "in-flight", errors: 0 });
      await api.logged(/^shutdown complete$/);
      expect(await api.exited).toBe(0);
      expect(isGroupAlive(api.child.pid!)).toBe(false);
    },
  );
});
