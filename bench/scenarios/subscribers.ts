import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Config } from "../../src/config";
import type { DatabaseConnection } from "../../src/db/connection";
import type { SelectedDatabase } from "../../src/db/select-database";
import { KnownOutliers } from "../../src/sales/known-outliers";
import { recordPurchase } from "../../src/sales/purchases";
import { seedBook } from "../kit/catalog";
import type { Progress } from "../kit/progress";
import type { HeapFigures } from "../processes/heap-probe";
import type { SubscriberReport, SubscriberWrites } from "../processes/subscriber-process";
import { readProfile, summarizeProfile, type ProfileSummary } from "../kit/profiles";
import { ratio } from "../kit/stats";
import { startChild, type Child } from "../kit/children";
import { PROFILER, waitFor } from "./profile";
import { expectedValues, finalCounts, purchaseSchedule, valueKey, type MixBooks } from "./subscriber-mix";

/**
 * Live sales at scale: one API process, thousands of subscribers over real WebSockets (load processes of their
 * own), and purchases recorded at a steady rate straight into the database, as any API process would record them:
 * one hot book taking 100 a second, 100 quiet books taking one now and then, and the subscribers spread over the
 * hot book's page, the quiet books' pages and bestseller shelves naming several books (`subscriber-mix.ts`). Each
 * row is measured twice in the same run: on the API (GraphQL subscriptions over graphql-ws), and on a baseline that
 * sends the same change feed's counts as bare WebSocket messages (bench/processes/bare-subscriptions-process.ts),
 * so that the difference is the cost of GraphQL.
 */

export interface SubscriberPlan {
  subscriberCounts: number[];
  /** The hot book's purchases a second. */
  purchasesPerSecond: number;
  quietBooks: number;
  /** The quiet books' purchases a second, all of them together, taken in turn: each one's every `quietBooks / rate` seconds. */
  quietPurchasesPerSecond: number;
  seconds: number;
  /** Subscribers per load process: each process is one Node thread, and 10,000 sockets in one would measure it. */
  perLoadProcess: number;
  /**
   * Where to save CPU profiles over each API row's purchases (`--subscriber-profile`): of the API, of the first load
   * process, and of the bench's own process (the purchases' writes, and the stand-in when it runs there); none when absent.
   */
  profileFolder?: string;
}

const SUBSCRIBER_PLAN = { subscriberCounts: [1_000, 10_000], purchasesPerSecond: 100, quietBooks: 100, quietPurchasesPerSecond: 10 };
export const SUBSCRIBER_PLANS: Record<"quick" | "full", SubscriberPlan> = {
  full: { ...SUBSCRIBER_PLAN, seconds: 10, perLoadProcess: 2_500 },
  quick: { ...SUBSCRIBER_PLAN, seconds: 3, perLoadProcess: 2_500 },
};

/** Issue 37's: 10,000 subscribers on one process with p99 under 1 s at 100 purchases a second; an idle subscriber under 20 KB. */
export const SUBSCRIBER_TARGETS = { p99Ms: 1_000, idleBytes: 20 * 1024 };

export type SubscriberServer = "API" | "bare baseline";

export interface SubscriberRow {
  server: SubscriberServer;
  subscribers: number;
  /** The hot book's purchases, and the quiet books' all together. */
  purchases: number;
  quietPurchases: number;
  /** The hot book's rate reached: purchases are sent one after another, so a slow write lowers it. */
  purchasesPerSecond: number;
  /** From the purchase's write being sent to the value's arrival at a subscriber. */
  p50Ms: number;
  p99Ms: number;
  /** Values received after each book's first, each a count a purchase brought. */
  delivered: number;
  /** Values there would be were none conflated: each purchase's count once for each subscriber of its book. */
  expected: number;
  /** Values a subscriber never received because a later count replaced them (expected − delivered). */
  conflated: number;
  /** Subscribers whose last value of each of their books was its final count: conflation may skip values, never the last. */
  atFinalCount: number;
  /** The server process's resident memory grown by connecting the subscribers, over their number (allocator slack included). */
  idleBytesPerSubscriber: number;
  /**
   * What the server process holds for each idle subscriber once fully garbage-collected: V8's heap in use and the memory
   * outside it that JavaScript objects own (`external`, buffers included), grown by connecting them, over their number.
   */
  retainedBytesPerSubscriber: number;
  /** The server process's CPU time (user and system) from the first purchase until every subscriber had the last, per purchase. */
  cpuMsPerPurchase: number;
  /** The same CPU time per 1,000 values delivered (issue 37's unit). */
  cpuMsPerThousandEvents: number;
  /** The load processes' CPU time, all together, from the first purchase until each had its final counts, per 1,000 values received. */
  loadCpuMsPerThousandEvents: number;
  /** The bench's own process's CPU time over the purchases, per purchase: their writes, and the stand-in with its change stream when it runs there. */
  benchCpuMsPerPurchase: number;
  /** With `profileFolder`, the API row's CPU profiles over the same span (the profiler's own cost included in the CPU above). */
  profiles?: SubscriberProfile[];
}

/** One process's CPU profile over a row's purchases. */
export interface SubscriberProfile {
  process: "API" | "first load process" | "bench process";
  file: string;
  summary: ProfileSummary;
}

export interface SubscriberResults {
  database: string;
  plan: SubscriberPlan;
  rows: SubscriberRow[];
}

const ROOT = join(__dirname, "..", "..");
/** Each server started able to be fully collected and to report its heap on request. */
const MEASURED_SERVER = ["--expose-gc", "--import", "./bench/processes/heap-probe.ts"];

export function subscriberSteps(plan: SubscriberPlan): number {
  return 2 * plan.subscriberCounts.length;
}

/** The books of one row: ids of its own, so that no row sees another's purchases. */
function rowBooks(server: SubscriberServer, subscribers: number, plan: SubscriberPlan): MixBooks {
  const prefix = `live-${server === "API" ? "api" : "bare"}-${subscribers}`;
  return { hot: `${prefix}-hot`, quiet: Array.from({ length: plan.quietBooks }, (_, index) => `${prefix}-quiet-${index}`) };
}

export async function benchmarkSubscribers(
  replicaSet: SelectedDatabase,
  open: (uri: string) => Promise<DatabaseConnection>,
  config: Config,
  plan: SubscriberPlan,
  progress: Progress,
): Promise<SubscriberResults> {
  const connection = await open(replicaSet.uri);
  const { db } = connection;
  const rows: SubscriberRow[] = [];
  const env = {
    MONGODB_URI: replicaSet.uri,
    MONGODB_DB: db.databaseName,
    SUBSCRIPTIONS_PER_PROCESS: String(Math.max(...plan.subscriberCounts) + 1),
    ANONYMOUS_CONNECTIONS_PER_PROCESS: String(Math.max(...plan.subscriberCounts) + 1),
    // Every subscriber connects from the bench machine's one address.
    CONNECTIONS_PER_ADDRESS: String(Math.max(...plan.subscriberCounts) + 1),
  };
  try {
    for (const subscribers of plan.subscriberCounts) {
      // Alternating which goes first, as the other baselines do, so that drift does not fall on one side only.
      const servers: SubscriberServer[] = rows.length % 4 === 0 ? ["API", "bare baseline"] : ["bare baseline", "API"];
      for (const server of servers) {
        const books = rowBooks(server, subscribers, plan);
        for (const bookId of [books.hot, ...books.quiet]) await seedBook(db, bookId, [], config);
        const script = server === "API" ? "bench/processes/api-process.ts" : "bench/processes/bare-subscriptions-process.ts";
        const profileFile =
          server === "API" && plan.profileFolder ? join(plan.profileFolder, `${subscribers}-subscribers-api.cpuprofile`) : undefined;
        const child = profileFile
          ? await startChild(script, [], { ...env, BENCH_CPU_PROFILE: profileFile }, [...MEASURED_SERVER, ...PROFILER], { ipc: true })
          : await startChild(script, [], env, MEASURED_SERVER, { ipc: true });
        try {
          // As an API process keeps one: after the first extra sale, a book's purchases go straight to its pages.
          const knownOutliers = new KnownOutliers();
          let buyer = 0;
          const purchase = (bookId: string) => recordPurchase(db, bookId, `live-buyer-${(buyer += 1)}`, config, { knownOutliers });
          const target: Target =
            server === "API"
              ? { url: child.firstLine.replace(/^http/, "ws"), protocol: "graphql" }
              : { url: child.firstLine, protocol: "bare" };
          rows.push({ server, subscribers, ...(await measure(child, target, books, subscribers, plan, purchase, profileFile)) });
        } finally {
          await child.stop();
        }
        progress.step(`${subscribers.toLocaleString("en")} subscribers on the ${server}`);
      }
    }
    return { database: replicaSet.description, plan, rows };
  } finally {
    await connection.close();
  }
}

async function measure(
  server: Child,
  target: Target,
  books: MixBooks,
  subscribers: number,
  plan: SubscriberPlan,
  purchase: (bookId: string) => Promise<unknown>,
  profileFile: string | undefined,
): Promise<Omit<SubscriberRow, "server" | "subscribers">> {
  const heapBefore = await retainedBytes(server);
  const rssBefore = residentBytes(server.pid);
  const loads: LoadProcess[] = [];
  try {
    for (let from = 0; from < subscribers; from += plan.perLoadProcess) {
      const loadProfile = profileFile && from === 0 ? profileFile.replace(/api\.cpuprofile$/, "load.cpuprofile") : undefined;
      loads.push(await startLoad(target, books, from, Math.min(plan.perLoadProcess, subscribers - from), loadProfile));
    }
    const idleBytesPerSubscriber = (residentBytes(server.pid) - rssBefore) / subscribers;
    const retainedBytesPerSubscriber = ((await retainedBytes(server)) - heapBefore) / subscribers;
    if (profileFile) server.signal("SIGUSR2");
    const benchProfile = profileFile ? await startProfiling() : undefined;
    const cpuBefore = cpuMs(server.pid);
    const benchCpuBefore = process.cpuUsage();
    for (const load of loads) load.go();
    const schedule = purchaseSchedule(plan, books);
    const finals = finalCounts(schedule, books);
    const reached: Record<string, number> = {};
    const writtenAt: Record<string, number> = {};
    const started = performance.now();
    for (const { dueMs, bookId } of schedule) {
      // Paced from the start, not from the last write: a slow write is caught up on, never spread over the rest.
      const due = started + dueMs;
      if (performance.now() < due) await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      reached[bookId] = (reached[bookId] ?? 0) + 1;
      writtenAt[valueKey(bookId, reached[bookId])] = performance.timeOrigin + performance.now();
      await purchase(bookId);
    }
    const purchases = finals[books.hot] ?? 0;
    const purchasesPerSecond = purchases / ((performance.now() - started) / 1000);
    const reports = await Promise.all(loads.map((load) => load.report({ finals, writtenAt })));
    const cpu = cpuMs(server.pid) - cpuBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const profiles = profileFile ? await savedProfiles(server, profileFile, benchProfile!) : undefined;
    const delivered = reports.reduce((total, report) => total + report.delivered, 0);
    const expected = expectedValues(subscribers, books, finals);
    const histogram = mergedHistogram(reports);
    return {
      purchases,
      quietPurchases: schedule.length - purchases,
      purchasesPerSecond,
      p50Ms: histogramPercentile(histogram, 50),
      p99Ms: histogramPercentile(histogram, 99),
      delivered,
      expected,
      conflated: expected - delivered,
      atFinalCount: reports.reduce((total, report) => total + report.atFinal, 0),
      idleBytesPerSubscriber,
      retainedBytesPerSubscriber,
      cpuMsPerPurchase: ratio(cpu, schedule.length),
      cpuMsPerThousandEvents: ratio(cpu * 1000, delivered),
      loadCpuMsPerThousandEvents: ratio(reports.reduce((total, report) => total + report.cpuMs, 0) * 1000, delivered),
      benchCpuMsPerPurchase: ratio((benchCpu.user + benchCpu.system) / 1000, schedule.length),
      ...(profiles && { profiles }),
    };
  } finally {
    for (const load of loads) load.stop();
  }
}

/** The bench's own process profiled from now: the purchases' writes, and the stand-in when it is the replica set. */
async function startProfiling(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return session;
}

/** Stops the server's and the bench's profilers (started before the first purchase) and summarizes what they and the first load process wrote. */
async function savedProfiles(server: Child, apiFile: string, bench: Session): Promise<SubscriberProfile[]> {
  server.signal("SIGUSR2");
  const benchFile = apiFile.replace(/api\.cpuprofile$/, "bench.cpuprofile");
  const { profile } = await bench.post("Profiler.stop");
  bench.disconnect();
  writeFileSync(benchFile, JSON.stringify(profile));
  await waitFor(apiFile);
  const files: [SubscriberProfile["process"], string][] = [
    ["API", apiFile],
    ["first load process", apiFile.replace(/api\.cpuprofile$/, "load.cpuprofile")],
    ["bench process", benchFile],
  ];
  return files.map(([process, file]) => ({ process, file, summary: summarizeProfile(readProfile(file), ROOT) }));
}

/** What the server holds after full collections: its heap in use and the memory its objects own outside it. */
async function retainedBytes(server: Child): Promise<number> {
  const { heapUsed, external } = (await server.ask("heap")) as HeapFigures;
  return heapUsed + external;
}

/** Where the subscribers connect, and how they speak: graphql-ws to the API, plain messages to the baseline. */
interface Target {
  url: string;
  protocol: "graphql" | "bare";
}

interface LoadProcess {
  /** The purchases start now: the load counts its CPU, and profiles itself when asked to, from here. */
  go(): void;
  report(writes: SubscriberWrites): Promise<SubscriberReport>;
  stop(): void;
}

/**
 * A subscriber process for subscribers `from` to `from + count - 1` of the mix, once every one holds each of its books'
 * first value; with `profileFile`, it profiles itself from `go` until it has its final counts.
 */
async function startLoad(
  { url, protocol }: Target,
  books: MixBooks,
  from: number,
  count: number,
  profileFile: string | undefined,
): Promise<LoadProcess> {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      ...(profileFile ? PROFILER : []),
      "bench/processes/subscriber-process.ts",
      ...[url, protocol, String(from), String(count), JSON.stringify(books)],
    ],
    { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...(profileFile && { BENCH_CPU_PROFILE: profileFile }) } },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`a subscriber process exited with ${String(code)}: see its message above`);
  });
  exited.catch(() => {});
  const next = async () => ((await Promise.race([lines.next(), exited])) as IteratorResult<string>).value as string;
  const ready = await next();
  if (ready !== "ready") throw new Error(`a subscriber process said "${ready}" instead of "ready"`);
  return {
    go: () => void child.stdin.write("go\n"),
    report: async (writes) => {
      child.stdin.write(`${JSON.stringify(writes)}\n`);
      return JSON.parse(await next()) as SubscriberReport;
    },
    stop: () => void (child.exitCode === null && child.kill("SIGTERM")),
  };
}

/** Latencies from every load process, in 0.1 ms buckets. */
function mergedHistogram(reports: SubscriberReport[]): Map<number, number> {
  const merged = new Map<number, number>();
  for (const report of reports) {
    for (const [bucket, values] of Object.entries(report.latencyHistogram))
      merged.set(Number(bucket), (merged.get(Number(bucket)) ?? 0) + values);
  }
  return merged;
}

/** Nearest-rank percentile of a histogram, in ms. */
function histogramPercentile(histogram: Map<number, number>, p: number): number {
  const total = [...histogram.values()].reduce((sum, values) => sum + values, 0);
  if (total === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen >= rank) return bucket / 10;
  }
  return Number.NaN;
}

// Linux's /proc: the figures of another process, without instrumenting it. The clock tick is 100 Hz on every Linux the bench runs on.
const CLOCK_TICKS_PER_SECOND = 100;

function procFile(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch (error) {
    throw new Error(`cannot read /proc/${pid}/${file}: the subscriber benchmark measures the server's memory and CPU on Linux only`, {
      cause: error,
    });
  }
}

function residentBytes(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(procFile(pid, "status"))?.[1];
  if (kib === undefined) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(kib) * 1024;
}

function cpuMs(pid: number): number {
  // Fields 14 and 15 (utime, stime), counted after the command name's closing parenthesis, which may hold spaces.
  const stat = procFile(pid, "stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}
