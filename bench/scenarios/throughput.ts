import { setTimeout } from "node:timers/promises";
import { commandsSent, loadFromChild, scrapeCost, SETTLE_MS } from "../kit/children";
import type { Scenario } from "../kit/http";
import {
  CACHED_LISTING,
  listingScenario,
  ONE_ROUND_TRIP,
  OVERHEAD,
  startApiOnShelf,
  withShelfApart,
  type ShelfApart,
  type ShelfSource,
} from "./shelf";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { ratio } from "../kit/stats";

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

export function throughputSteps(plan: Plan["http"]): number {
  return 3 + plan.listingSizes.length;
}

export async function benchmarkThroughput(source: ShelfSource, plan: Plan["http"], progress: Progress): Promise<ThroughputResults> {
  return withShelfApart(source, async (shelf) => {
    // Every answer from the database, as before the response cache: one round trip stays one command.
    const uncached = [OVERHEAD, ONE_ROUND_TRIP, ...plan.listingSizes.map(listingScenario)];
    const measured = await measureOnApi(shelf, false, uncached, plan, progress);
    // The API as production configures it, caching public answers for the default max age.
    measured.push(...(await measureOnApi(shelf, true, [CACHED_LISTING], plan, progress)));
    const overhead = measured[0]?.requestsPerSecond ?? Number.NaN;
    const rows = measured.map((row) => ({ ...row, shareOfOverhead: row.requestsPerSecond / overhead }));
    return { database: shelf.description, rows };
  });
}

async function measureOnApi(
  shelf: ShelfApart,
  cached: boolean,
  scenarios: Scenario[],
  plan: Plan["http"],
  progress: Progress,
): Promise<Omit<ThroughputRow, "shareOfOverhead">[]> {
  const api = await startApiOnShelf(shelf, { cached });
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
