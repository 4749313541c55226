import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { cpuMsOf, loadFromChild, SETTLE_MS, type Child } from "../kit/children";
import type { Plan } from "../kit/plan";
import { readProfile, summarizeProfile, type ProfileSummary } from "../kit/profiles";
import type { Progress } from "../kit/progress";
import { ratio } from "../kit/stats";
import { listingScenario, startApiOnShelf, withShelfApart, type ShelfApart, type ShelfSource } from "./shelf";
import { benchToken } from "./versus-peer";

/**
 * Where a storefront listing's time goes: V8's CPU profiles of the API process and of the database
 * process (the stand-in; a database the bench did not start is not profiled) under one load of each
 * listing size, taken by `processes/profiler.ts` around the measured load only. The profiles are
 * saved for DevTools; the report gives their top lines and each part's share, and turns the shares
 * into milliseconds per request and per book with the CPU per request measured during the same load.
 */

export interface ProcessProfile {
  /** CPU per request of the process over the profiled load (user and system, all threads), the profiler's own cost included. */
  cpuMsPerRequest: number;
  file: string;
  summary: ProfileSummary;
}

export interface ListingProfile {
  books: number;
  scenario: string;
  requests: number;
  requestsPerSecond: number;
  failures: number;
  api: ProcessProfile;
  /** Null when the database is not the stand-in the bench started. */
  database: ProcessProfile | null;
}

export interface ProfileResults {
  database: string;
  node: string;
  /** Where the `.cpuprofile` files are, to open in Chrome DevTools or speedscope. */
  folder: string;
  secondsPerLoad: number;
  rows: ListingProfile[];
}

export const PROFILER = ["--import", "./bench/processes/profiler.ts"];
const PROFILE_WAIT_MS = 60_000;

export function profileSteps(plan: Plan["profile"]): number {
  return plan.listingSizes.length;
}

export async function benchmarkProfiles(
  source: ShelfSource,
  plan: Plan["profile"],
  folder: string,
  progress: Progress,
): Promise<ProfileResults> {
  mkdirSync(folder, { recursive: true });
  const files = { api: join(folder, "api.cpuprofile"), database: join(folder, "database.cpuprofile") };
  const standIn = { env: { BENCH_CPU_PROFILE: files.database }, nodeOptions: PROFILER };
  const profiled = async (shelf: ShelfApart): Promise<ProfileResults> => {
    const { apiTokens, authorization } = benchToken();
    const api = await startApiOnShelf(shelf, { env: { API_TOKENS: apiTokens, BENCH_CPU_PROFILE: files.api }, nodeOptions: PROFILER });
    try {
      const rows: ListingProfile[] = [];
      for (const books of plan.listingSizes) {
        const servers = { api, database: shelf.standIn, authorization, files };
        rows.push(await profileListing(books, servers, plan, folder));
        progress.step(`${books}-book listing`);
      }
      return { database: shelf.description, node: process.version, folder, secondsPerLoad: plan.seconds, rows };
    } finally {
      await api.stop();
    }
  };
  return withShelfApart(source, profiled, standIn);
}

interface Profiled {
  api: Child;
  database: Child | null;
  authorization: string;
  files: { api: string; database: string };
}

/** Warms the API, then profiles both processes over one load of the listing and saves their profiles under the listing's name. */
async function profileListing(books: number, servers: Profiled, plan: Plan["profile"], folder: string): Promise<ListingProfile> {
  const scenario = listingScenario(books);
  const body = scenario.body(0, {});
  const { api, database, authorization, files } = servers;
  await loadFromChild(api.firstLine, body, plan.connections, plan.warmupSeconds, authorization);
  await setTimeout(SETTLE_MS);
  const processes = [
    { child: api, file: files.api, saved: join(folder, `${books}-books-api.cpuprofile`) },
    ...(database ? [{ child: database, file: files.database, saved: join(folder, `${books}-books-database.cpuprofile`) }] : []),
  ];
  for (const { child } of processes) child.signal("SIGUSR2");
  const cpuBefore = processes.map(({ child }) => cpuMsOf(child.pid));
  const result = await loadFromChild(api.firstLine, body, plan.connections, plan.seconds, authorization);
  const cpuMs = processes.map(({ child }, index) => cpuMsOf(child.pid) - cpuBefore[index]!);
  const requests = result.requests.total;
  const profiles: ProcessProfile[] = [];
  for (const [index, { child, file, saved }] of processes.entries()) {
    child.signal("SIGUSR2");
    await waitFor(file);
    renameSync(file, saved);
    profiles.push({ cpuMsPerRequest: ratio(cpuMs[index]!, requests), file: saved, summary: summarizeProfile(readProfile(saved), ROOT) });
  }
  return {
    books,
    scenario: scenario.name,
    requests,
    requestsPerSecond: requests / result.duration,
    failures: result.non2xx + result.errors,
    api: profiles[0]!,
    database: profiles[1] ?? null,
  };
}

const ROOT = join(__dirname, "..", "..");

/** Resolves once the profiler has written `file` (it renames a finished profile into place). */
export async function waitFor(file: string): Promise<void> {
  const deadline = Date.now() + PROFILE_WAIT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline)
      throw new Error(`no CPU profile at ${file} after ${PROFILE_WAIT_MS / 1000} s: did the process load bench/processes/profiler.ts?`);
    await setTimeout(100);
  }
}
