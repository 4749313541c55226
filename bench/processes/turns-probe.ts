import { writeFileSync, renameSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Loaded with `--import` into the API process the victim bench starts, before its entry point: how long the event loop's
 * turns are while one kind of request is sent, which is what a request arriving meanwhile waits for. SIGUSR2 starts a
 * measure, the next SIGUSR2 writes it to BENCH_TURNS_FILE (renamed into place, never read half-written).
 *
 * Two measures, as docs/benchmarks/analysis.md's "An `_entities` in turns of the event loop" took them: the main
 * thread's CPU time between consecutive ticks of a 1 ms timer (one iteration of the loop; CPU time, which a busy machine
 * inflates but does not invent), and `monitorEventLoopDelay` (wall time, which it does).
 */
export interface TurnsMeasure {
  /** Turns whose CPU time was over 20, 10 and 5 ms. */
  over20Ms: number;
  over10Ms: number;
  over5Ms: number;
  longestCpuMs: number;
  delayMaxMs: number;
  delayP99Ms: number;
}

const file = process.env["BENCH_TURNS_FILE"];
const TICK_MS = 1;
/** The main thread's CPU time (Node 23.9 and later, which the project's `@types/node` predates), else the process's. */
const threadCpuUsage: () => NodeJS.CpuUsage =
  (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process) ?? (() => process.cpuUsage());

if (file) {
  let measure: { stop(): TurnsMeasure } | undefined;
  process.on("SIGUSR2", () => {
    if (!measure) return void (measure = startMeasure());
    const taken = measure.stop();
    measure = undefined;
    writeFileSync(`${file}.partial`, JSON.stringify(taken));
    renameSync(`${file}.partial`, file);
  });
}

function startMeasure(): { stop(): TurnsMeasure } {
  const turns: number[] = [];
  let last = threadCpuUsage();
  const timer = setInterval(() => {
    const now = threadCpuUsage();
    turns.push((now.user - last.user + now.system - last.system) / 1000);
    last = now;
  }, TICK_MS);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  return {
    stop: () => {
      clearInterval(timer);
      delay.disable();
      const over = (ms: number) => turns.filter((cpuMs) => cpuMs > ms).length;
      return {
        over20Ms: over(20),
        over10Ms: over(10),
        over5Ms: over(5),
        longestCpuMs: Math.max(0, ...turns),
        delayMaxMs: delay.max / 1e6,
        delayP99Ms: delay.percentile(99) / 1e6,
      };
    },
  };
}
