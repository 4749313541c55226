import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout } from "node:timers/promises";
import type autocannon from "autocannon";
import type { Config } from "../src/config";
import type { DatabaseConnection } from "../src/db/connection";
import type { SelectedDatabase } from "../src/db/select-database";
import { CACHED_LISTING, listingScenario, ONE_ROUND_TRIP, OVERHEAD, seedShelf, type Scenario } from "./http";
import type { Plan } from "./plan";
import type { Progress } from "./progress";
import { ratio } from "./stats";

/**
 * Throughput as production runs: the database, the API and the load generator each in a process of
 * its own, so that each request's cost in the API process is the API's alone. In the HTTP part the
 * three share one JavaScript thread, and every command's work in the stand-in counts against the API.
 */

export interface ThroughputRow {
  scenario: string;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The API's commands during the measured load (from its /metrics) over the requests it completed. */
  commandsPerRequestUnderLoad: number;
  failures: number;
  /** This row's throughput over `{ __typename }`'s, measured in the same run. */
  shareOfOverhead: number;
}

export interface ThroughputResults {
  /** Where the database ran: a stand-in started for this part, or the run's own (already another process). */
  database: string;
  rows: ThroughputRow[];
}

const ROOT = join(__dirname, "..");
// Far longer than a request takes, even at p99 under load.
export const SETTLE_MS = 1_000;

export function throughputSteps(plan: Plan["http"]): number {
  return 3 + plan.listingSizes.length;
}

export async function benchmarkThroughput(
  database: SelectedDatabase,
  open: (uri: string) => Promise<DatabaseConnection>,
  config: Config,
  plan: Plan["http"],
  progress: Progress,
): Promise<ThroughputResults> {
  return withShelfApart(database, open, config, async (shelf) => {
    // Every answer from the database, as before the response cache: one round trip stays one command.
    const uncached = [OVERHEAD, ONE_ROUND_TRIP, ...plan.listingSizes.map(listingScenario)];
    const measured = await measureOnApi({ ...shelf.env, CATALOG_MAX_AGE_SECONDS: "0" }, uncached, plan, progress);
    // The API as production configures it, caching public answers for the default max age.
    measured.push(...(await measureOnApi(shelf.env, [CACHED_LISTING], plan, progress)));
    const overhead = measured[0]?.requestsPerSecond ?? Number.NaN;
    const rows = measured.map((row) => ({ ...row, shareOfOverhead: row.requestsPerSecond / overhead }));
    return { database: shelf.description, rows };
  });
}

/** The database the servers under load read: where it runs, and the environment that points a server process at it. */
export interface ShelfApart {
  description: string;
  env: NodeJS.ProcessEnv;
}

/** Runs `run` with the shelf seeded in a database in a process apart from the bench's: the stand-in started for it, or the run's own. */
export async function withShelfApart<T>(
  database: SelectedDatabase,
  open: (uri: string) => Promise<DatabaseConnection>,
  config: Config,
  run: (shelf: ShelfApart) => Promise<T>,
): Promise<T> {
  // An external mongod or mongodb-memory-server's already runs apart; only the stand-in runs inside the bench.
  const standIn =
    database.kind === "offline-server" ? await startChild(require.resolve("@bookstore/offline-mongo/cli"), ["--port", "0"], {}) : null;
  const uri = standIn ? (/mongodb:\/\/\S+/.exec(standIn.firstLine)?.[0] ?? "") : database.uri;
  const connection = await open(uri);
  try {
    await seedShelf(connection.db, config);
    return await run({
      description: standIn ? `the offline stand-in in a process of its own (${uri})` : database.description,
      env: { MONGODB_URI: uri, MONGODB_DB: connection.db.databaseName },
    });
  } finally {
    await connection.close();
    await standIn?.stop();
  }
}

async function measureOnApi(
  env: NodeJS.ProcessEnv,
  scenarios: Scenario[],
  plan: Plan["http"],
  progress: Progress,
): Promise<Omit<ThroughputRow, "shareOfOverhead">[]> {
  const api = await startChild("bench/api-process.ts", [], env);
  try {
    const measured: Omit<ThroughputRow, "shareOfOverhead">[] = [];
    for (const scenario of scenarios) {
      measured.push(await measure(api.firstLine, scenario, plan));
      progress.step(`${scenario.name} (processes apart)`);
    }
    return measured;
  } finally {
    await api.stop();
  }
}

async function measure(url: string, scenario: Scenario, plan: Plan["http"]): Promise<Omit<ThroughputRow, "shareOfOverhead">> {
  const body = scenario.body(0, {});
  await loadFromChild(url, body, plan.connections, plan.warmupSeconds);
  // The API still finishes the requests the warm-up left in flight: their commands are not the measured run's.
  await setTimeout(SETTLE_MS);
  const before = await commandsSent(url);
  const result = await loadFromChild(url, body, plan.connections, plan.seconds);
  await setTimeout(SETTLE_MS);
  // The /metrics scrape itself sends a count (the outlier-books gauge): take it out.
  const commands = (await commandsSent(url)) - before - (await scrapeCost(url));
  return {
    scenario: scenario.name,
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    commandsPerRequestUnderLoad: ratio(commands, result.requests.total),
    failures: result.non2xx + result.errors,
  };
}

export async function loadFromChild(url: string, body: string, connections: number, seconds: number): Promise<autocannon.Result> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/load-process.ts", url, body, String(connections), String(seconds)], {
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

export interface Child {
  /** The first line the child printed: the address it serves. */
  firstLine: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startChild(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
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
  return { firstLine, pid: child.pid ?? 0, stop };
}
