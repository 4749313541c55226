import type { Config } from "../../src/config";
import type { DatabaseConnection } from "../../src/db/connection";
import type { SelectedDatabase } from "../../src/db/select-database";
import {
  ATTACKERS_PER_KIND,
  MEANT_CODES,
  attacks,
  seedVictimCatalog,
  sendLabelled,
  unexpectedAnswers,
  VICTIM,
  type AttackAnswer,
  type AttackKind,
  type Failure,
  type VictimCatalog,
} from "../../test/support/victim-attacks";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandsSent, cpuMsOf, scrapeCost, startChild, type Child } from "../kit/children";
import { withDatabaseApart } from "../kit/database-apart";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { percentile } from "../kit/stats";
import type { TurnsMeasure } from "../processes/turns-probe";
import type { VictimOrder, VictimRole } from "../processes/victim-process";
import { waitFor } from "./profile";
import { benchToken } from "./versus-peer";
/**
 * Issue 35's victim as a benchmark: a cheap anonymous query (`book(id: "1")`) sent every 50 ms, alone, then
 * beside as many clients sending it back to back, then beside four attackers of each amplifying kind (a broad
 * search, windows of buyers, `_entities`, aliases) sending back to back; the attacks are the test's
 * (`test/support/victim-attacks.ts`). The database, the API, the victim, the crowd and each kind's attackers each run
 * in a process of their own (bench/processes/victim-process.ts), as a user's victim is another machine than its
 * attackers: the victim's latency is then the API's, not time its client waited behind theirs on one event loop.
 */

/** The goal: the victim's p99 beside the attackers within five times its p99 alone. */
export const VICTIM_TARGET = { p99OverAlone: 5 };

export const VICTIM_PHASES = ["alone", "beside as many clients sending its query", "beside the attackers"] as const;

export interface VictimPhase {
  phase: (typeof VICTIM_PHASES)[number];
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * Its three slowest requests, each with when it was sent (seconds into the phase): whether what makes the p99 comes
   * in bursts, and when.
   */
  slowest: { ms: number; atSeconds: number }[];
  /** Its answers that were not a clean 200, by their code (`HTTP <status>` when they had none). */
  failures: Record<string, number>;
}

export interface AttackerFigures {
  kind: AttackKind;
  /** Answers of the kind's four attackers together, by their codes (`answered in full` when none). */
  answers: Record<string, number>;
  /** Answers it was not meant to get: DATABASE_UNAVAILABLE, a 5xx, any code not its own. */
  unexpected: number;
}

/** What one request of a kind costs, sent alone one after another: the API's and the database's CPU, and the commands it sends. */
export interface RequestCost {
  kind: "victim" | AttackKind;
  requests: number;
  apiCpuMs: number;
  databaseCpuMs: number;
  commands: number;
  /** The API's event loop while the kind's requests were sent: what any other request arriving meanwhile waited for. */
  turns: TurnsMeasure;
}

export interface VictimResults {
  database: string;
  attackersPerKind: number;
  attackSeconds: number;
  phases: VictimPhase[];
  attackers: AttackerFigures[];
  /** Each kind's cost per request, the database's NaN when the run's database is not the bench's own process. */
  costs: RequestCost[];
}

export function victimSteps(): number {
  return 2 + VICTIM_PHASES.length;
}

export async function benchmarkVictim(
  database: SelectedDatabase,
  open: (uri: string) => Promise<DatabaseConnection>,
  config: Config,
  plan: Plan["victim"],
  progress: Progress,
): Promise<VictimResults> {
  return withDatabaseApart(database, open, async ({ db, env, description, standIn }) => {
    const catalog = await seedVictimCatalog(db, config);
    progress.step("3,002 books, 20 outliers");
    const { apiTokens, authorization } = benchToken();
    // Uncached, as the test's server: every victim and attacker reaches the database.
    const turnsFile = join(tmpdir(), `bench-turns-${process.pid}.json`);
    const api = await startChild(
      "bench/processes/api-process.ts",
      [],
      { ...env, CATALOG_MAX_AGE_SECONDS: "0", API_TOKENS: apiTokens, BENCH_TURNS_FILE: turnsFile },
      ["--import", "./bench/processes/turns-probe.ts"],
    );
    const kinds = Object.keys(MEANT_CODES) as AttackKind[];
    const sides = new Map<VictimRole, Child>();
    try {
      const url = api.firstLine;
      const costs = await costPerRequest(url, { api, turnsFile, database: standIn?.pid ?? null }, catalog);
      progress.step("what one request of each kind costs");
      for (const role of ["victim", "crowd", ...kinds] as const) sides.set(role, await startSide(url, role));
      const side = (role: VictimRole) => sides.get(role)!;
      await measure(side("victim"), { durationMs: plan.warmupMs });
      const alone = await measure<Measured>(side("victim"), { durationMs: plan.aloneMs });
      progress.step(VICTIM_PHASES[0]);
      const [crowded] = await Promise.all([
        measure<Measured>(side("victim"), { durationMs: plan.crowdMs }),
        measure(side("crowd"), { durationMs: plan.crowdMs }),
      ]);
      progress.step(VICTIM_PHASES[1]);
      const order = { durationMs: plan.attackMs, catalog, authorization };
      const [attacked, ...byKind] = await Promise.all([
        measure<Measured>(side("victim"), order),
        ...kinds.map((kind) => measure<AttackAnswer[][]>(side(kind), order)),
      ]);
      progress.step(VICTIM_PHASES[2]);
      return {
        database: description,
        attackersPerKind: ATTACKERS_PER_KIND,
        attackSeconds: plan.attackMs / 1000,
        phases: [alone, crowded, attacked].map((measured, index) => phase(VICTIM_PHASES[index]!, measured)),
        attackers: kinds.map((kind, index) => attackerFigures(kind, byKind[index]!.flat())),
        costs,
      };
    } finally {
      await Promise.all([...sides.values()].map((child) => child.stop()));
      await api.stop();
    }
  });
}

/** Requests of each kind sent one after another for its cost: enough for CPU time read in 10 ms ticks. */
const COST_REQUESTS = 50;

/**
 * Each of a kind's requests from an address of its own (127.0.<kind>.1 and on), as from clients of one request each:
 * one address's fifty heavy requests would be refused RATE_LIMITED after two (its budget, client-budget.ts), and
 * the table would weigh refusals.
 */
function costAddress(kind: number, sent: number): string {
  return `127.0.${1 + kind}.${1 + sent}`;
}

/**
 * What one request of each kind (the victim's, each attack) costs the API and the database, sent alone one after another
 * after one request that fills the caches and memos a repeat finds: CPU time, which holds on a busy machine, and commands.
 * Every kind is sent without a bearer: the windows' one bearer would spend its budget (20,000 documents per 4 s) on
 * twenty of its fifty refusals and be held in debt, while refused as over the document limit, before the access
 * check, the windows cost the same anonymous.
 */
async function costPerRequest(
  url: string,
  processes: { api: Child; turnsFile: string; database: number | null },
  catalog: VictimCatalog,
): Promise<RequestCost[]> {
  const { api, turnsFile, database: databasePid } = processes;
  const kinds: { kind: RequestCost["kind"]; text: string }[] = [
    { kind: "victim", text: JSON.stringify(VICTIM) },
    ...Object.entries(attacks(catalog)).map(([kind, { body }]) => ({ kind: kind as AttackKind, text: JSON.stringify(body) })),
  ];
  const costs: RequestCost[] = [];
  for (const [index, { kind, text }] of kinds.entries()) {
    const options = (sent: number) => ({ label: `cost-${kind}`, from: costAddress(index, sent) });
    await sendLabelled(url, text, options(COST_REQUESTS));
    const [apiCpu, databaseCpu, commands] = [cpuMsOf(api.pid), cpuMsOf(databasePid), await commandsSent(url)];
    api.signal("SIGUSR2");
    for (let sent = 0; sent < COST_REQUESTS; sent += 1) await sendLabelled(url, text, options(sent));
    api.signal("SIGUSR2");
    await waitFor(turnsFile);
    const turns = JSON.parse(readFileSync(turnsFile, "utf8")) as TurnsMeasure;
    rmSync(turnsFile);
    costs.push({
      kind,
      requests: COST_REQUESTS,
      apiCpuMs: (cpuMsOf(api.pid) - apiCpu) / COST_REQUESTS,
      databaseCpuMs: (cpuMsOf(databasePid) - databaseCpu) / COST_REQUESTS,
      turns,
      // The /metrics scrape itself sends a count (the outlier-books gauge): taken out.
      commands: ((await commandsSent(url)) - commands - (await scrapeCost(url))) / COST_REQUESTS,
    });
  }
  return costs;
}

interface Measured {
  latencies: number[];
  sentAtMs: number[];
  failures: Failure[];
}

/** One side of the benchmark (the victim, the crowd, one kind's attackers) in a process of its own, ready for orders. */
function startSide(url: string, role: VictimRole): Promise<Child> {
  return startChild("bench/processes/victim-process.ts", [url, role], {}, [], { ipc: true });
}

/** What `side` measured, sending for the order's time: started in every side at once, the sides overlap within milliseconds. */
async function measure<T = unknown>(side: Child, order: VictimOrder): Promise<T> {
  return (await side.ask(JSON.stringify(order))) as T;
}

function attackerFigures(kind: AttackKind, answers: AttackAnswer[]): AttackerFigures {
  return {
    kind,
    answers: tally(
      answers.map(({ status, codes }) => (status >= 500 ? `HTTP ${status}: ` : "") + (codes.join(", ") || "answered in full")),
    ),
    unexpected: unexpectedAnswers(kind, answers).length,
  };
}

function phase(name: VictimPhase["phase"], { latencies, sentAtMs, failures }: Measured): VictimPhase {
  return {
    phase: name,
    requests: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    slowest: latencies
      .map((ms, answered) => ({ ms, atSeconds: sentAtMs[answered]! / 1000 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3),
    failures: tally(failures.map(({ status, codes }) => codes.map(String).join(", ") || `HTTP ${status}`)),
  };
}

function tally(labels: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const label of labels) counts[label] = (counts[label] ?? 0) + 1;
  return counts;
}
