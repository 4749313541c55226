/** How much of everything a run does; `--quick` trades repetitions (and nothing else) for time. */
export interface Plan {
  mode: "quick" | "full";
  writes: { existing: number[]; warmupOps: number; rounds: number; opsPerRound: number };
  reads: {
    purchases: number[];
    warmup: number;
    repetitions: number;
    /** A repeated read stops early once it has used this much time, with at least MIN_SAMPLES samples. */
    budgetMs: number;
    /** Requests of the chapter's path sampled for the whole list when reading all of them would take too long. */
    baselineWholeListSample: number;
  };
  http: {
    connections: number;
    warmupSeconds: number;
    seconds: number;
    listingSizes: number[];
    /** The purchase mix runs for a number of requests, not a duration, so that every purchase sent is answered before the check. */
    mixWarmupRequests: number;
    mixRequests: number;
  };
  /** The API against a peer (the bare Apollo server, Mercurius): loads of `seconds` each, alternating between the two for `rounds` rounds. */
  versusPeer: { connections: number; warmupSeconds: number; seconds: number; rounds: number };
  /** CPU profiles of the API and the stand-in under one load of `seconds` of each storefront listing (`--profile`). */
  profile: { connections: number; warmupSeconds: number; seconds: number; listingSizes: number[] };
  scale: {
    /** Books in the catalogs the eight typical requests are measured on, each seeded in the run. */
    catalogSizes: number[];
    warmup: number;
    repetitions: number;
    /** Purchases the 64 clients send to one outlier, all answered before the book is checked. */
    hotBookRequests: number;
  };
  /** Issue 35's victim: its query alone, beside as many clients sending it, then beside the attackers, each for this long after a warm-up. */
  victim: { warmupMs: number; aloneMs: number; crowdMs: number; attackMs: number };
}

/** The largest catalog takes minutes to seed: the full run measures it, a quick run only with `--largest-catalog`. */
export const LARGEST_CATALOG = 1_000_002;

export const MIN_SAMPLES = 5;

export const FULL_PLAN: Plan = {
  mode: "full",
  writes: { existing: [100, 1_000, 5_000, 10_000, 100_000], warmupOps: 20, rounds: 10, opsPerRound: 30 },
  reads: { purchases: [50, 10_000, 1_000_000], warmup: 3, repetitions: 30, budgetMs: 20_000, baselineWholeListSample: 20 },
  http: { connections: 10, warmupSeconds: 1, seconds: 8, listingSizes: [5, 20, 50], mixWarmupRequests: 200, mixRequests: 3_000 },
  versusPeer: { connections: 10, warmupSeconds: 1, seconds: 5, rounds: 3 },
  profile: { connections: 10, warmupSeconds: 2, seconds: 10, listingSizes: [5, 20, 50] },
  scale: { catalogSizes: [3_002, 100_002, LARGEST_CATALOG], warmup: 5, repetitions: 30, hotBookRequests: 5_000 },
  victim: { warmupMs: 1_000, aloneMs: 10_000, crowdMs: 10_000, attackMs: 10_000 },
};

export const QUICK_PLAN: Plan = {
  mode: "quick",
  writes: { existing: [100, 1_000, 5_000, 10_000, 100_000], warmupOps: 5, rounds: 4, opsPerRound: 10 },
  reads: { purchases: [50, 10_000, 1_000_000], warmup: 1, repetitions: 10, budgetMs: 3_000, baselineWholeListSample: 5 },
  http: { connections: 10, warmupSeconds: 0.5, seconds: 2, listingSizes: [5, 20, 50], mixWarmupRequests: 50, mixRequests: 500 },
  versusPeer: { connections: 10, warmupSeconds: 0.5, seconds: 2, rounds: 2 },
  profile: { connections: 10, warmupSeconds: 1, seconds: 4, listingSizes: [5, 20, 50] },
  scale: { catalogSizes: [3_002, 100_002], warmup: 2, repetitions: 10, hotBookRequests: 1_000 },
  // The ten seconds of attack even here: shorter, the victim's p99 would rest on a handful of samples.
  victim: { warmupMs: 500, aloneMs: 5_000, crowdMs: 5_000, attackMs: 10_000 },
};
