import { BESIDE_AMPLIFIERS, type HttpResults, type HttpRow } from "./scenarios/http";
import { CACHED_LISTING, ONE_ROUND_TRIP, OVERHEAD } from "./scenarios/shelf";
import type { ReadResults } from "./scenarios/reads";
import type { ThroughputResults } from "./scenarios/throughput";
import {
  FIFTY_BOOK_LISTING,
  PLAIN_LISTING,
  TWENTY_BOOK_LISTING,
  TWENTY_BOOK_PLAIN_LISTING,
  type VersusPeerResults,
  type VersusPeerRow,
} from "./scenarios/versus-peer";
import type { WriteResults } from "./scenarios/writes";
import { SCALE_SCENARIOS, type HotBookFigures, type ScaleResults, type ScaleRow, type SearchFuzzRow } from "./scenarios/catalog-scale";
import type { ShardTargetingResults } from "./scenarios/shard-targeting";
import { SUBSCRIBER_TARGETS, type SubscriberResults } from "./scenarios/subscribers";
import { VICTIM_TARGET, type VictimResults } from "./scenarios/victim";
import { SEARCH_DOCS_PER_RESULT } from "../test/support/search-fuzz";

export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean;
  /**
   * Counts and invariants are exact on any backend and machine, so a miss fails the run.
   * Times depend on the machine and its other load, so a missed time target is reported, never fatal.
   */
  failsRun: boolean;
}

/** Every section's results, under the names the report's JSON has always used. */
export interface Results {
  writes: WriteResults;
  reads: ReadResults;
  http: HttpResults;
  throughput: ThroughputResults;
  versusBare: VersusPeerResults;
  versusMercurius: VersusPeerResults;
  scale: ScaleResults;
  shardTargeting: ShardTargetingResults;
  subscribers: SubscriberResults;
  victim: VictimResults;
}

/** The targets each section can be checked against alone, its own invariants included (`--only` prints these). */
export const SECTION_TARGETS: { [Section in keyof Results]: (results: Results[Section]) => TargetCheck[] } = {
  writes: (writes) => [writeCostIsFlat(writes), noInvariantBroke("writes", writes)],
  reads: (reads) => [firstWindowCostIsFlat(reads), windowsCostAtMostTwoCommands(reads), noInvariantBroke("reads", reads)],
  http: (http) => [
    ...listingCommands(http),
    listingThroughput(
      http.rows.filter((row) => row.batching),
      "all three in the bench's process (the database's work counted against the API)",
    ),
    besideAmplifiers(http.rows),
    noInvariantBroke("http", http),
  ],
  throughput: ({ rows }) => [
    listingThroughput(rows, "the database, the API and the load each in its own process, as in production"),
    cachedListingThroughput(rows),
  ],
  versusBare: (versusBare) => versusBareTargets(versusBare),
  versusMercurius: (versusMercurius) => versusMercuriusTargets(versusMercurius),
  scale: (scale) => [
    ...SCALE_SCENARIOS.flatMap((scenario) => scaleTargets(scale.rows.filter((row) => row.scenario === scenario))),
    ...hotBookTargets(scale.hotBooks),
    searchFuzzTarget(scale.searchFuzz),
    noInvariantBroke("scale", scale),
  ],
  shardTargeting: (shardTargeting) => [oneShardPaths(shardTargeting)],
  subscribers: (subscribers) => subscriberTargets(subscribers),
  victim: (victim) => victimTargets(victim),
};

export function checkTargets(results: Results): TargetCheck[] {
  return (Object.keys(SECTION_TARGETS) as (keyof Results)[]).flatMap((section) =>
    (SECTION_TARGETS[section] as (results: Results[typeof section]) => TargetCheck[])(results[section]),
  );
}

/** docs/operations/sharding.md's promise: the requests it names reach one shard, their transactions too. */
function oneShardPaths({ shards, rows }: ShardTargetingResults): TargetCheck {
  const target = `On ${shards} simulated shards: 0 multi-shard commands and 0 multi-shard transactions on a purchase, book(id), a buyers window and _entities for a book`;
  const paths = rows.filter((row) => row.oneShardPath);
  const broken = paths.filter((row) => row.multiShardCommands > 0 || row.multiShardTransactions > 0);
  const commands = paths.reduce((sum, row) => sum + row.commands, 0);
  const measured =
    broken.length === 0
      ? `${commands} commands on ${paths.length} requests, each on one shard`
      : broken
          .map((row) => `${row.request}: ${row.multiShardCommands} commands, ${row.multiShardTransactions} transactions on several shards`)
          .join("; ");
  return { target, measured, pass: broken.length === 0 && paths.length > 0, failsRun: true };
}

/**
 * Issue 37's targets for the API's subscribers: every one ends at each of its books' final counts (exact: conflation may
 * skip values, never the last), no more values delivered than purchases brought (exact: a value sent twice or invented
 * is a bug), p99 delivery under 1 s and an idle subscriber under 20 KB (times and memory: reported). The memory target
 * is judged by what a subscriber holds after full garbage collections, not by RSS grown (BENCHMARKS.md, section 8).
 */
export function subscriberTargets({ rows }: SubscriberResults): TargetCheck[] {
  const api = rows.filter((row) => row.server === "API");
  const largest = api.reduce<SubscriberResults["rows"][number] | undefined>(
    (most, row) => (most && most.subscribers > row.subscribers ? most : row),
    undefined,
  );
  const exact: TargetCheck[] = [
    {
      target: "Every subscriber of the API ends at each of its books' final counts",
      measured: api.map((row) => `${row.atFinalCount} of ${row.subscribers}`).join(", ") || "not measured",
      pass: api.length > 0 && api.every((row) => row.atFinalCount === row.subscribers),
      failsRun: true,
    },
    {
      target: "No subscriber of the API receives more values than the purchases of its books brought",
      measured: api.map((row) => `${row.delivered} of at most ${row.expected}`).join(", ") || "not measured",
      pass: api.length > 0 && api.every((row) => row.delivered <= row.expected),
      failsRun: true,
    },
  ];
  if (!largest) return exact;
  return [
    ...exact,
    {
      target: `p99 delivery under ${SUBSCRIBER_TARGETS.p99Ms} ms with ${largest.subscribers} subscribers`,
      measured: `${Math.round(largest.p99Ms)} ms at ${Math.round(largest.purchasesPerSecond)} purchases/s of the hot book`,
      pass: largest.p99Ms < SUBSCRIBER_TARGETS.p99Ms,
      failsRun: false,
    },
    {
      target: `An idle subscriber holds under ${SUBSCRIBER_TARGETS.idleBytes / 1024} KB of the API process's memory after full garbage collections`,
      measured:
        `${(largest.retainedBytesPerSubscriber / 1024).toFixed(1)} KB with ${largest.subscribers} subscribers ` +
        `(resident memory grew ${(largest.idleBytesPerSubscriber / 1024).toFixed(1)} KB per subscriber)`,
      pass: largest.retainedBytesPerSubscriber < SUBSCRIBER_TARGETS.idleBytes,
      failsRun: false,
    },
  ];
}

/**
 * Issue 35's victim: no error in any phase and no attacker answered but as meant (exact: a miss fails the run),
 * and its p99 beside the attackers within five times its p99 alone (a time: reported).
 */
export function victimTargets({ phases, attackers, attackersPerKind }: VictimResults): TargetCheck[] {
  const failed = (phase: VictimResults["phases"][number]) => Object.values(phase.failures).reduce((sum, times) => sum + times, 0);
  const [alone, crowded, attacked] = phases;
  const checks: TargetCheck[] = [
    {
      target: `The victim's query, sent every 50 ms beside ${attackersPerKind} attackers of each amplifying kind, is never answered with an error`,
      measured: phases
        .map(
          (phase) =>
            `${phase.phase}: ${failed(phase)} of ${phase.requests}${failed(phase) > 0 ? ` (${JSON.stringify(phase.failures)})` : ""}`,
        )
        .join("; "),
      pass: phases.length > 0 && phases.every((phase) => phase.requests > 0 && failed(phase) === 0),
      failsRun: true,
    },
    {
      target: "Every attacker gets its refusal, a full answer or REQUEST_TIMEOUT: never DATABASE_UNAVAILABLE or a 5xx",
      measured: attackers
        .map(
          ({ kind, unexpected, answers }) =>
            `${kind}: ${unexpected} of ${Object.values(answers).reduce((sum, times) => sum + times, 0)} unexpected`,
        )
        .join(", "),
      pass: attackers.length > 0 && attackers.every(({ unexpected }) => unexpected === 0),
      failsRun: true,
    },
  ];
  if (!alone || !crowded || !attacked) return checks;
  const factor = attacked.p99Ms / alone.p99Ms;
  return [
    ...checks,
    {
      target: `The victim's p99 beside the attackers within ${VICTIM_TARGET.p99OverAlone}× its p99 alone`,
      measured:
        `${factor.toFixed(2)}× (${attacked.p99Ms.toFixed(1)} ms against ${alone.p99Ms.toFixed(1)} ms); beside as many clients ` +
        `sending its own query: ${(crowded.p99Ms / alone.p99Ms).toFixed(2)}× (${crowded.p99Ms.toFixed(1)} ms)`,
      pass: factor <= VICTIM_TARGET.p99OverAlone,
      failsRun: false,
    },
  ];
}

function writeCostIsFlat({ rows }: WriteResults): TargetCheck {
  const target = "Write cost at 100,000 existing purchases within 1.5 times the cost at 100";
  const small = rows.find((row) => row.existing === 100);
  const large = rows.find((row) => row.existing === 100_000);
  if (!small || !large) return { target, measured: "not measured", pass: false, failsRun: false };
  const factor = large.project.medianMs / small.project.medianMs;
  return {
    target,
    measured: `${factor.toFixed(2)}× (${large.project.medianMs.toFixed(3)} ms against ${small.project.medianMs.toFixed(3)} ms, medians)`,
    pass: factor <= 1.5,
    failsRun: false,
  };
}

function firstWindowCostIsFlat({ windows }: ReadResults): TargetCheck {
  const target = "First-window commands and bytes the same for a book of 50 and of 1,000,000 purchases";
  const [small, large] = [50, 1_000_000].map((purchases) => windows.find((row) => row.purchases === purchases && row.start === 0)?.api);
  if (!small || !large) return { target, measured: "not measured", pass: false, failsRun: true };
  const describe = (figures: typeof small) => `${figures.commands} cmd, ${figures.bytesSent} B sent, ${figures.bytesReceived} B received`;
  const same = small.commands === large.commands && small.bytesSent === large.bytesSent && small.bytesReceived === large.bytesReceived;
  return { target, measured: `50: ${describe(small)}; 1,000,000: ${describe(large)}`, pass: same, failsRun: true };
}

function windowsCostAtMostTwoCommands({ windows, wholeLists }: ReadResults): TargetCheck {
  const most = Math.max(...windows.map((row) => row.api.maxCommands), ...wholeLists.map((row) => row.api.maxCommands));
  const reads =
    windows.reduce((total, row) => total + row.api.samples, 0) + wholeLists.reduce((total, row) => total + row.api.measuredRequests, 0);
  return {
    target: "Any window costs at most 2 database commands",
    measured: `at most ${most} over ${reads.toLocaleString("en")} window reads`,
    pass: most <= 2,
    failsRun: true,
  };
}

function listingCommands({ rows }: HttpResults): TargetCheck[] {
  const listings = (batching: boolean) => rows.filter((row) => row.batching === batching && row.scenario.startsWith("storefront listing"));
  const counts = (list: HttpRow[]) => list.map((row) => row.commandsPerRequest);
  const batched = counts(listings(true));
  const unbatched = counts(listings(false));
  const sizes = listings(true).map((row) => /first: (\d+)/.exec(row.scenario)?.[1] ?? "?");
  const show = (list: number[]) => list.map((count, index) => `${sizes[index]} books: ${count}`).join(", ");
  return [
    {
      target: "Storefront listing: a constant number of commands per request, whatever the number of books listed",
      measured: show(batched),
      pass: batched.length > 1 && batched.every((count) => count === batched[0]),
      failsRun: true,
    },
    {
      target: "With batching disabled, the listing's commands grow with the books listed",
      measured: show(unbatched),
      pass: unbatched.length > 1 && unbatched.every((count, index) => index === 0 || count > unbatched[index - 1]!),
      failsRun: true,
    },
  ];
}

/** The least ours / peer throughput asked of each request, by its scenario's name; a request not named is in the table only. */
type LeastRatios = ReadonlyMap<string, number>;

/** Issue 39's: 1.0 of the bare server's throughput on the three small requests, 1.5 on the 20-book storefront listing. */
const LEAST_OF_BARE: LeastRatios = new Map([
  [OVERHEAD.name, 1.0],
  [ONE_ROUND_TRIP.name, 1.0],
  [PLAIN_LISTING.name, 1.0],
  [TWENTY_BOOK_LISTING.name, 1.5],
]);

/**
 * Issue 56's: 1.0 of Mercurius's throughput on `book(id)`, the 5-book listing and the 20-book shelf, and 0.7 on
 * `{ __typename }`, which measures the framework alone (ours keeps every protection on, Mercurius none). The
 * issue's 20-book request is asked 1.0 both as its table words it (no buyers) and as the storefront listing.
 */
const LEAST_OF_MERCURIUS: LeastRatios = new Map([
  [OVERHEAD.name, 0.7],
  [ONE_ROUND_TRIP.name, 1.0],
  [PLAIN_LISTING.name, 1.0],
  [TWENTY_BOOK_PLAIN_LISTING.name, 1.0],
  [TWENTY_BOOK_LISTING.name, 1.0],
]);

/** Each measured request that `least` names against its least ratio to the peer (times: reported, never fatal). */
function throughputAgainstPeer(rows: VersusPeerRow[], least: LeastRatios, peer: string): TargetCheck[] {
  return rows.flatMap((row) => {
    const floor = least.get(row.scenario);
    if (floor === undefined) return [];
    return {
      target: `\`${row.scenario}\`: the API at ${floor.toFixed(1)} or more of ${peer}'s throughput`,
      measured: `${row.oursOverPeer.toFixed(3)}× (${Math.round(row.oursRequestsPerSecond)} against ${Math.round(row.peerRequestsPerSecond)} req/s)`,
      pass: row.oursOverPeer >= floor,
      failsRun: false,
    };
  });
}

/** Against Mercurius with graphql-jit (issue 56): throughput only, as issue 56 asks. */
export function versusMercuriusTargets({ rows }: VersusPeerResults): TargetCheck[] {
  return throughputAgainstPeer(rows, LEAST_OF_MERCURIUS, "Mercurius");
}

/**
 * What the request path costs against the bare Apollo server (times: reported, never fatal): its throughput
 * targets, and the 50-book listing within 2.5 times the 20-book one in the API process's CPU per request
 * (linear in books, not worse).
 */
export function versusBareTargets({ rows }: VersusPeerResults): TargetCheck[] {
  const throughput = throughputAgainstPeer(rows, LEAST_OF_BARE, "a bare Apollo server");
  const [twenty, fifty] = [TWENTY_BOOK_LISTING, FIFTY_BOOK_LISTING].map((listing) => rows.find((row) => row.scenario === listing.name));
  if (!twenty || !fifty) return throughput;
  const growth = fifty.oursCpuMsPerRequest / twenty.oursCpuMsPerRequest;
  return [
    ...throughput,
    {
      target: "the 50-book storefront listing at most 2.5 times the 20-book one in the API process's CPU per request",
      measured: `${growth.toFixed(2)}× (${fifty.oursCpuMsPerRequest.toFixed(2)} against ${twenty.oursCpuMsPerRequest.toFixed(2)} ms)`,
      pass: growth <= 2.5,
      failsRun: false,
    },
  ];
}

function noInvariantBroke(section: string, { violations }: { violations: string[] }): TargetCheck {
  return {
    target: `No invariant breaks in ${section}: no lost or doubled purchase, no over-full array or page`,
    measured: violations.length === 0 ? "none broken" : `${violations.length} broken: ${violations.slice(0, 3).join("; ")}`,
    pass: violations.length === 0,
    failsRun: true,
  };
}

function listingThroughput(rows: { scenario: string; requestsPerSecond: number }[], setUp: string): TargetCheck {
  const target = `Storefront listing of 5 books at 50 % or more of \`{ __typename }\`'s throughput, ${setUp}`;
  const overhead = rows.find((row) => row.scenario.startsWith("{ __typename }"));
  const listing = rows.find((row) => row.scenario.includes("books(first: 5)"));
  const floor = rows.find((row) => row.scenario === ONE_ROUND_TRIP.name);
  if (!overhead || !listing || !floor) return { target, measured: "not measured", pass: false, failsRun: false };
  const share = (row: { requestsPerSecond: number }) => `${((row.requestsPerSecond / overhead.requestsPerSecond) * 100).toFixed(0)} %`;
  const measured =
    `${share(listing)} (${Math.round(listing.requestsPerSecond)} against ${Math.round(overhead.requestsPerSecond)} req/s); ` +
    `one round trip alone: ${share(floor)} (${Math.round(floor.requestsPerSecond)} req/s)`;
  return { target, measured, pass: listing.requestsPerSecond >= 0.5 * overhead.requestsPerSecond, failsRun: false };
}

/** What one request's pool share leaves others: a round trip's p99 beside amplifying requests, against alone. */
function besideAmplifiers(rows: HttpRow[]): TargetCheck {
  const target = "One round trip's p99 beside clients sending requests at the cost limit within 3× of its p99 alone, nothing failed";
  const alone = rows.find((row) => row.scenario === ONE_ROUND_TRIP.name);
  const beside = rows.find((row) => row.scenario === BESIDE_AMPLIFIERS.name);
  if (!alone || !beside) return { target, measured: "not measured", pass: false, failsRun: false };
  const factor = beside.p99Ms / alone.p99Ms;
  const measured = `${factor.toFixed(2)}× (${beside.p99Ms} ms against ${alone.p99Ms} ms), ${beside.failures} failed`;
  return { target, measured, pass: factor <= 3 && beside.failures === 0, failsRun: false };
}

function cachedListingThroughput(rows: ThroughputResults["rows"]): TargetCheck {
  const target = "Catalog listing of 5 books from the response cache at 80 % or more of `{ __typename }`'s throughput, processes apart";
  const overhead = rows.find((row) => row.scenario === OVERHEAD.name);
  const cached = rows.find((row) => row.scenario === CACHED_LISTING.name);
  if (!overhead || !cached) return { target, measured: "not measured", pass: false, failsRun: false };
  const measured =
    `${(cached.shareOfOverhead * 100).toFixed(0)} % (${Math.round(cached.requestsPerSecond)} against ` +
    `${Math.round(overhead.requestsPerSecond)} req/s), ${cached.commandsPerRequestUnderLoad.toFixed(3)} commands per request`;
  return { target, measured, pass: cached.shareOfOverhead >= 0.8, failsRun: false };
}

/** Per request kind: its exact costs the same at every catalog size (fails the run), its time at the largest within 1.5× of the smallest (reported). */
function scaleTargets(rows: ScaleRow[]): TargetCheck[] {
  const scenario = rows[0]?.scenario ?? "?";
  const exact = (row: ScaleRow) =>
    `${row.figures.maxCommands} cmd, ${row.figures.bytesSent} B sent, ${row.figures.bytesReceived} B received, ${row.keysExamined} keys and ${row.docsExamined} docs examined`;
  const sizes = rows.map((row) => `${row.books.toLocaleString("en")}: ${exact(row)}`).join("; ");
  const [smallest, largest] = [rows[0], rows.at(-1)];
  const factor = smallest && largest ? largest.figures.medianMs / smallest.figures.medianMs : Number.NaN;
  return [
    {
      target: `${scenario}: commands, bytes, keys and documents examined the same at every catalog size`,
      measured: rows.length > 1 ? sizes : "not measured",
      pass: rows.length > 1 && rows.every((row) => exact(row) === exact(rows[0]!) && row.figures.commands === row.figures.maxCommands),
      failsRun: true,
    },
    {
      target: `${scenario}: time at the largest catalog within 1.5 times the smallest`,
      measured: `${factor.toFixed(2)}× (${largest?.figures.medianMs.toFixed(3)} ms against ${smallest?.figures.medianMs.toFixed(3)} ms, medians)`,
      pass: factor <= 1.5,
      failsRun: false,
    },
  ];
}

/** Issue 35, item 1: every search of the fuzz set examines at most 10 documents per book asked for, at every catalog size (a count: fails the run). */
function searchFuzzTarget(rows: SearchFuzzRow[]): TargetCheck {
  const measured = rows
    .map(
      (row) =>
        `${row.books.toLocaleString("en")}: at most ${row.maxDocsPerResult.toFixed(2)} docs per book asked for, ` +
        `${row.answered} answered, ${row.refused} refused${row.over.length > 0 ? `; over: ${row.over.join("; ")}` : ""}`,
    )
    .join("; ");
  return {
    target: `Every search of the fuzz set examines at most ${SEARCH_DOCS_PER_RESULT} documents per book asked for (window, count and next window), at every catalog size`,
    measured: rows.length > 0 ? measured : "not measured",
    pass: rows.length > 0 && rows.every((row) => row.maxDocsPerResult <= SEARCH_DOCS_PER_RESULT && row.answered > 0),
    failsRun: true,
  };
}

/**
 * Issue 18's targets for one hot book: shared writes against single ones in the same run, for purchases
 * without a purchaseId and for keyed ones on a replica set (one transaction each, or one per shared
 * write). Rates and latencies are the stand-in's and the machine's, so reported; commands per purchase are exact.
 */
function hotBookTargets(figures: HotBookFigures[]): TargetCheck[] {
  return HOT_BOOK_KINDS.flatMap((kind) =>
    hotBookPairTargets(
      figures.filter((row) => row.keyedOnReplicaSet === kind.keyed),
      kind,
    ),
  );
}

const HOT_BOOK_KINDS = [
  { keyed: false, of: "A hot book's", sharedWrite: "shared write", commandsBound: "well below 2 with batching on (at most 1)" },
  {
    keyed: true,
    of: "A hot book's keyed purchases on a replica set:",
    sharedWrite: "shared transaction",
    commandsBound: "at most 1 with batching on (a transaction is 6 alone)",
  },
];

function hotBookPairTargets(rows: HotBookFigures[], { of, sharedWrite, commandsBound }: (typeof HOT_BOOK_KINDS)[number]): TargetCheck[] {
  const [alone, shared] = [false, true].map((batching) => rows.find((row) => row.batching === batching));
  if (!alone || !shared)
    return [{ target: `${of} figures with batching on and off`, measured: "not measured", pass: false, failsRun: true }];
  const rate = shared.requestsPerSecond / alone.requestsPerSecond;
  const tail = shared.p99Ms / alone.p99Ms;
  return [
    {
      target: `${of} purchases/s with batching on at least 5 times that with it off`,
      measured: `${rate.toFixed(2)}× (${Math.round(shared.requestsPerSecond)} against ${Math.round(alone.requestsPerSecond)})`,
      pass: rate >= 5,
      failsRun: false,
    },
    {
      target: `${of} p99 with batching on at most a third of that with it off`,
      measured: `${tail.toFixed(2)}× (${shared.p99Ms} ms against ${alone.p99Ms} ms)`,
      pass: tail <= 1 / 3,
      failsRun: false,
    },
    {
      target: `${of} commands per purchase under load ${commandsBound}`,
      measured: `${shared.commandsPerPurchase.toFixed(2)} on, ${alone.commandsPerPurchase.toFixed(2)} off; ${shared.purchasesPerWrite.toFixed(1)} purchases per ${sharedWrite}`,
      pass: shared.commandsPerPurchase <= 1,
      failsRun: true,
    },
  ];
}
