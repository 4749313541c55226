import { performance } from "node:perf_hooks";
import type { Config } from "../../src/config";
import type { DatabaseConnection } from "../../src/db/connection";
import type { SelectedDatabase } from "../../src/db/select-database";
import {
  ATTACKERS_PER_KIND,
  MEANT_CODES,
  seedVictimCatalog,
  sendUntil,
  underAttack,
  unexpectedAnswers,
  victim,
  VICTIM,
  type AttackKind,
  type Failure,
} from "../../test/support/victim-attacks";
import { startChild } from "../kit/children";
import { withDatabaseApart } from "../kit/database-apart";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { percentile } from "../kit/stats";
import { benchToken } from "./versus-bare";

/**
 * Issue 35's victim as a benchmark: a cheap anonymous query (`book(id: "1")`) sent every 50 ms, alone, then
 * beside as many clients sending it back to back, then beside four attackers of each amplifying kind (a broad
 * search, windows of buyers, `_entities`, aliases) sending back to back; the attacks are the test's
 * (`test/support/victim-attacks.ts`). The database and the API each run in a process of their own; the victim
 * and the attackers share the bench's.
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
    try {
      const url = api.firstLine;
      await victim(url, performance.now() + plan.warmupMs);
      const alone = await victim(url, performance.now() + plan.aloneMs);
      progress.step(VICTIM_PHASES[0]);
      const crowded = await besideCrowd(url, plan.crowdMs);
      progress.step(VICTIM_PHASES[1]);
      const attacked = await underAttack(url, catalog, authorization, plan.attackMs);
      progress.step(VICTIM_PHASES[2]);
      return {
        database: description,
        attackersPerKind: ATTACKERS_PER_KIND,
        attackSeconds: plan.attackMs / 1000,
        phases: [alone, crowded, attacked.victim].map((measured, index) => phase(VICTIM_PHASES[index]!, measured)),
        attackers: (Object.keys(MEANT_CODES) as AttackKind[]).map((kind) => {
          const answers = attacked.attackers.filter((attacker) => attacker.kind === kind).flatMap((attacker) => attacker.answers);
          return {
            kind,
            answers: tally(
              answers.map(({ status, codes }) => (status >= 500 ? `HTTP ${status}: ` : "") + (codes.join(", ") || "answered in full")),
            ),
            unexpected: unexpectedAnswers(kind, answers).length,
          };
        }),
      };
    } finally {
      await api.stop();
    }
  });
}

/** The victim beside as many clients as there are attackers, each sending the victim's own query back to back: what their number alone costs it. */
async function besideCrowd(url: string, durationMs: number) {
  const until = performance.now() + durationMs;
  const clients = Object.keys(MEANT_CODES).length * ATTACKERS_PER_KIND;
  const crowd = Array.from({ length: clients }, () => sendUntil(url, VICTIM, until, { label: "crowd" }));
  const measured = await victim(url, until);
  await Promise.all(crowd);
  return measured;
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
