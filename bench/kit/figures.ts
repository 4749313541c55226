import type { CommandMonitor, Measured } from "./monitor";
import { MIN_SAMPLES } from "./plan";
import { median, percentile } from "./stats";

/** One kind of operation, summarised over its samples: times by median and 99th percentile, wire costs by median. */
export interface OperationFigures {
  samples: number;
  medianMs: number;
  p99Ms: number;
  commands: number;
  maxCommands: number;
  bytesSent: number;
  bytesReceived: number;
}

export function summarize(samples: readonly Measured<unknown>[]): OperationFigures {
  const of = (pick: (sample: Measured<unknown>) => number) => samples.map(pick);
  return {
    samples: samples.length,
    medianMs: median(of((sample) => sample.ms)),
    p99Ms: percentile(
      of((sample) => sample.ms),
      99,
    ),
    commands: median(of((sample) => sample.commands)),
    maxCommands: Math.max(...of((sample) => sample.commands)),
    bytesSent: median(of((sample) => sample.bytesSent)),
    bytesReceived: median(of((sample) => sample.bytesReceived)),
  };
}

export interface Repetition {
  warmup: number;
  repetitions: number;
  /** Stop early once this much time is spent, provided MIN_SAMPLES samples are in. */
  budgetMs: number;
}

/** Samples of `operation` after a warm-up, each measured alone. */
export async function sampleRepeatedly<T>(
  monitor: CommandMonitor,
  operation: () => Promise<T>,
  { warmup, repetitions, budgetMs }: Repetition,
): Promise<Measured<T>[]> {
  for (let run = 0; run < warmup; run += 1) await operation();
  const samples: Measured<T>[] = [];
  const started = performance.now();
  while (samples.length < repetitions && (samples.length < MIN_SAMPLES || performance.now() - started < budgetMs)) {
    samples.push(await monitor.measure(operation));
  }
  return samples;
}
