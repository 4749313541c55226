import type { Config } from "../../src/config";
import type { DatabaseConnection } from "../../src/db/connection";
import type { SelectedDatabase } from "../../src/db/select-database";
import {
  ATTACKERS_PER_KIND,
  MEANT_CODES,
  seedVictimCatalog,
  unexpectedAnswers,
  type AttackAnswer,
  type AttackKind,
  type Failure,
} from "../../test/support/victim-attacks";
import { startChild, type Child } from "../kit/children";
import { withDatabaseApart } from "../kit/database-apart";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { percentile } from "../kit/stats";
import type { VictimOrder, VictimRole } from "../processes/victim-process";
import { benchToken } from "./versus-bare";
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

export interface VictimResults {
  database: string;
  attackersPerKind: number;
  attackSeconds: number;
  phases: VictimPhase[];
  attackers: AttackerFigures[];
}

export function victimSteps(): number {
  return 1 + VICTIM_PHASES.length;
}

export async function benchmarkVictim(
  database: SelectedDatabase,
  open: (uri: string) => Promise<DatabaseConnection>,
  config: Config,
  plan: Plan["victim"],
  progress: Progress,
): Promise<VictimResults> {
  return withDatabaseApart(database, open, async ({ db, env, description }) => {
    const catalog = await seedVictimCatalog(db, config);
    progress.step("3,002 books, 20 outliers");
    const { apiTokens, authorization } = benchToken();
    // Uncached, as the test's server: every victim and attacker reaches the database.
    const api = await startChild("bench/processes/api-process.ts", [], { ...env, CATALOG_MAX_AGE_SECONDS: "0", API_TOKENS: apiTokens });
    const kinds = Object.keys(MEANT_CODES) as AttackKind[];
    const sides = new Map<VictimRole, Child>();
    try {
      const url = api.firstLine;
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
      };
    } finally {
      await Promise.all([...sides.values()].map((child) => child.stop()));
      await api.stop();
    }
  });
}

interface Measured {
  latencies: number[];
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

function phase(name: VictimPhase["phase"], { latencies, failures }: { latencies: number[]; failures: Failure[] }): VictimPhase {
  return {
    phase: name,
    requests: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failures: tally(failures.map(({ status, codes }) => codes.map(String).join(", ") || `HTTP ${status}`)),
  };
}

function tally(labels: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const label of labels) counts[label] = (counts[label] ?? 0) + 1;
  return counts;
}
