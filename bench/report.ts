import type { Environment } from "./kit/environment";
import type { OperationFigures } from "./kit/figures";
import type { HttpResults } from "./scenarios/http";
import type { ReadResults, WholeListFigures } from "./scenarios/reads";
import type { Results, TargetCheck } from "./targets";
import type { ThroughputResults } from "./scenarios/throughput";
import type { VersusPeerResults } from "./scenarios/versus-peer";
import type { WriteResults } from "./scenarios/writes";
import type { HotBookFigures, ScaleResults } from "./scenarios/catalog-scale";
import type { ListingProfile, ProcessProfile, ProfileResults } from "./scenarios/profile";
import type { ShardTargetingResults } from "./scenarios/shard-targeting";
import { SUBSCRIBER_TARGETS, type SubscriberProfile, type SubscriberResults } from "./scenarios/subscribers";
import { SHELF_BOOKS, SUBSCRIBER_MIX, SUBSCRIBER_PERIOD } from "./scenarios/subscriber-mix";
import { VICTIM_TARGET, type VictimResults } from "./scenarios/victim";

export interface Report extends Results {
  mode: "quick" | "full";
  startedAt: string;
  durationSeconds: number;
  environment: Environment;
  targets: TargetCheck[];
}

export function renderReport(report: Report): string {
  const sections = (Object.keys(SECTION_RENDERERS) as (keyof Results)[]).map((section) =>
    (SECTION_RENDERERS[section] as (results: Results[typeof section]) => string)(report[section]),
  );
  return [renderEnvironment(report), ...sections, renderTargets(report.targets)].join("\n\n");
}

/** Each section's tables, in the report's order. */
export const SECTION_RENDERERS: { [Section in keyof Results]: (results: Results[Section]) => string } = {
  writes: (writes) => renderWrites(writes),
  reads: (reads) => [renderWindowReads(reads), renderWholeLists(reads)].join("\n\n"),
  http: (http) => renderHttp(http),
  throughput: (throughput) => renderThroughput(throughput),
  versusBare: (versusBare) => renderVersusPeer(versusBare, BARE_PEER),
  versusMercurius: (versusMercurius) => renderVersusPeer(versusMercurius, MERCURIUS_PEER),
  scale: (scale) => renderScale(scale),
  shardTargeting: (shardTargeting) => renderShardTargeting(shardTargeting),
  subscribers: (subscribers) => renderSubscribers(subscribers),
  victim: (victim) => renderVictim(victim),
};

/** A titled part of the report: heading, optional explanation, body. */
function part(title: string, explanation: string | null, body: string): string {
  return [`### ${title}`, ...(explanation ? [explanation] : []), body].join("\n\n");
}

type Column<Row> = [header: string, cell: (row: Row) => string | number];

function table<Row>(rows: readonly Row[], columns: Column<Row>[]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [
    line(columns.map(([header]) => header)),
    line(columns.map(() => "---")),
    ...rows.map((row) => line(columns.map(([, cell]) => cell(row)))),
  ].join("\n");
}

const count = (value: number) => Math.round(value).toLocaleString("en");
const ms = (value: number) => (value < 10 ? value.toFixed(3) : value < 100 ? value.toFixed(1) : count(value));
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const cpu = (value: number) => (Number.isNaN(value) ? "n/a" : value.toFixed(2));
const times = (value: number) => `${value < 10 ? value.toFixed(2) : count(value)}×`;

function bytes(value: number): string {
  if (value < 10 * 2 ** 10) return `${count(value)} B`;
  if (value < 2 ** 20) return `${(value / 2 ** 10).toFixed(1)} KiB`;
  if (value < 2 ** 30) return `${(value / 2 ** 20).toFixed(1)} MiB`;
  return `${(value / 2 ** 30).toFixed(1)} GiB`;
}

function renderEnvironment({ mode, startedAt, durationSeconds, environment: env }: Report): string {
  const lines = [
    `## Benchmark run (${mode === "quick" ? "--quick: fewer repetitions, shorter loads" : "full"})`,
    "",
    `- Started ${startedAt}, took ${durationSeconds.toFixed(0)} s.`,
    `- Backend: ${env.backend}, version ${env.backendVersion}: ${env.backendDescription}`,
    `- Node ${env.node} on ${env.cpu} (${env.cores} cores, ${env.memoryGiB} GiB), ${env.platform}.`,
    `- Outlier threshold ${env.settings.outlierThreshold}, extra_sales page size ${env.settings.extraSalesPageSize}.`,
    "- Times are medians (and 99th percentiles) of individually timed operations after a warm-up; each ratio compares figures from this same run.",
    "- Bytes are the BSON sizes of the command documents sent and the replies received, from the driver's command monitoring (message framing excluded).",
  ];
  if (env.backend === "offline-server") {
    lines.push(
      "- **The backend is the project's offline stand-in, not MongoDB: its times say nothing about MongoDB's. " +
        "Command and byte counts are exact on any backend.** Set MONGODB_URI to measure a real MongoDB.",
    );
  }
  return lines.join("\n");
}

const wireCost = (figures: OperationFigures) => `${figures.commands} / ${bytes(figures.bytesSent)} / ${bytes(figures.bytesReceived)}`;

function renderWrites({ rows }: WriteResults): string {
  return part(
    "Writes: one purchase on a book already holding N purchases",
    "(a) plain `$push` onto an unbounded embedded array; (b) the project's `recordPurchase`. Per operation: commands / bytes sent / bytes received (medians).",
    table(rows, [
      ["N existing", (row) => count(row.existing)],
      ["(a) median ms", (row) => ms(row.unbounded.medianMs)],
      ["(a) p99 ms", (row) => ms(row.unbounded.p99Ms)],
      ["(b) median ms", (row) => ms(row.project.medianMs)],
      ["(b) p99 ms", (row) => ms(row.project.p99Ms)],
      ["(a)/(b)", (row) => times(row.unboundedOverProject)],
      ["(a) per op", (row) => wireCost(row.unbounded)],
      ["(b) per op", (row) => wireCost(row.project)],
      ["(a) document", (row) => bytes(row.unboundedDocumentBytes)],
      ["(b) book / largest page", (row) => `${bytes(row.projectBookBytes)} / ${bytes(row.projectLargestPageBytes)}`],
      ["samples each", (row) => row.project.samples],
    ]),
  );
}

function renderWindowReads({ windows }: ReadResults): string {
  return part(
    "Reads: one window of 20 buyers",
    "API: the GraphQL resolver's path (book through a DataLoader, then only the pages holding the window). " +
      "Chapter: the seed chapter's path (the book; beyond the embedded buyers, every extra_sales page, concatenated and sliced).",
    table(windows, [
      ["purchases", (row) => count(row.purchases)],
      ["window", (row) => `${row.window} @${count(row.start)}`],
      ["API median ms", (row) => ms(row.api.medianMs)],
      ["API p99 ms", (row) => ms(row.api.p99Ms)],
      ["chapter median ms", (row) => ms(row.chapter.medianMs)],
      ["chapter/API", (row) => times(row.chapterOverApi)],
      ["API commands", (row) => row.api.maxCommands],
      ["chapter commands", (row) => row.chapter.maxCommands],
      ["API received", (row) => bytes(row.api.bytesReceived)],
      ["chapter received", (row) => bytes(row.chapter.bytesReceived)],
      ["samples", (row) => `${row.api.samples} / ${row.chapter.samples}`],
    ]),
  );
}

function renderWholeLists({ wholeLists }: ReadResults): string {
  const seconds = (figures: WholeListFigures) =>
    `${ms(figures.totalMs / 1000)}${figures.measuredRequests < figures.requests ? ` (projected from ${figures.measuredRequests} requests)` : ""}`;
  return part(
    "Reads: the whole list in windows of 100",
    null,
    table(wholeLists, [
      ["purchases", (row) => count(row.purchases)],
      ["requests", (row) => count(row.api.requests)],
      ["API total s", (row) => seconds(row.api)],
      ["chapter total s", (row) => seconds(row.chapter)],
      ["chapter/API", (row) => times(row.chapterOverApi)],
      ["API commands (max per request)", (row) => `${count(row.api.commands)} (${row.api.maxCommands})`],
      ["chapter commands", (row) => count(row.chapter.commands)],
      ["API received", (row) => bytes(row.api.bytesReceived)],
      ["chapter received", (row) => bytes(row.chapter.bytesReceived)],
    ]),
  );
}

function renderHttp({ rows }: HttpResults): string {
  return part(
    "GraphQL over HTTP (autocannon on 127.0.0.1)",
    "Commands per request: one request sent alone (exact), and the server's commands during the measured load over the requests it completed.",
    table(rows, [
      ["scenario", (row) => row.scenario],
      ["batching", (row) => (row.batching ? "on" : "**off**")],
      ["req/s", (row) => count(row.requestsPerSecond)],
      ["p50 ms", (row) => row.p50Ms],
      ["p99 ms", (row) => row.p99Ms],
      ["commands/request", (row) => row.commandsPerRequest],
      ["under load", (row) => row.commandsPerRequestUnderLoad.toFixed(2)],
      ["requests", (row) => count(row.requests)],
      ["failed", (row) => row.failures],
    ]),
  );
}

function renderThroughput({ database, rows }: ThroughputResults): string {
  return part(
    "Throughput with the database, the API and autocannon each in a process of its own",
    `As production runs. Database: ${database}. Commands under load from the API's /metrics over the requests it completed.`,
    table(rows, [
      ["scenario", (row) => row.scenario],
      ["req/s", (row) => count(row.requestsPerSecond)],
      ["share of { __typename }", (row) => `${(row.shareOfOverhead * 100).toFixed(0)} %`],
      ["p50 ms", (row) => row.p50Ms],
      ["p99 ms", (row) => row.p99Ms],
      ["commands/request under load", (row) => row.commandsPerRequestUnderLoad.toFixed(2)],
      ["requests", (row) => count(row.requests)],
      ["failed", (row) => row.failures],
    ]),
  );
}

/** How the report names a peer: its section's title, its columns' word for it, and what it is. */
interface PeerText {
  title: string;
  label: string;
  about: string;
}

const BARE_PEER: PeerText = {
  title: "The API against a bare Apollo Server 5 + Express + driver server",
  label: "bare",
  about:
    "Bare: one resolver per field, no limits, no access checks, no logs, no metrics, no DataLoader " +
    "(`bench/processes/bare-api-process.ts`, its schema and resolvers in `bench/processes/peer.ts`).",
};

const MERCURIUS_PEER: PeerText = {
  title: "The API against Mercurius 16 + Fastify 5 + driver, compiled by graphql-jit (issue 56)",
  label: "Mercurius",
  about:
    "Mercurius: every operation compiled by graphql-jit once seen (`jit: 1`), the bare server's schema and resolvers " +
    "(`bench/processes/peer.ts`), no limits, no access checks, no logging, no DataLoader (`bench/processes/mercurius-process.ts`).",
};

export function renderVersusPeer(
  { database, node, rounds, secondsPerLoad, rows }: VersusPeerResults,
  { title, label, about }: PeerText,
): string {
  return part(
    title,
    `Each in a process of its own on Node ${node}, on the same database (${database}); ${rounds} rounds of ${secondsPerLoad} s of load on each, ` +
      `alternating which goes first; every request carries a token with \`purchases:read\`. ${about} CPU per request of each process, user and system: ` +
      "the API's, the peer's, and the database's while each of them was loaded (n/a when the bench did not start the database).",
    table(rows, [
      ["request", (row) => `\`${row.scenario}\``],
      ["ours req/s", (row) => count(row.oursRequestsPerSecond)],
      [`${label} req/s`, (row) => count(row.peerRequestsPerSecond)],
      [`ours / ${label}`, (row) => times(row.oursOverPeer)],
      ["by round", (row) => row.roundRatios.map((value) => value.toFixed(2)).join(", ")],
      [`CPU ms/request, ours / ${label}`, (row) => `${cpu(row.oursCpuMsPerRequest)} / ${cpu(row.peerCpuMsPerRequest)}`],
      [
        `database CPU ms/request, ours / ${label}`,
        (row) => `${cpu(row.databaseCpuMsPerOurRequest)} / ${cpu(row.databaseCpuMsPerPeerRequest)}`,
      ],
      ["our commands/request", (row) => row.oursCommandsPerRequest.toFixed(2)],
      ["failed", (row) => row.failures],
    ]),
  );
}

function renderSubscribers({ database, plan, rows }: SubscriberResults): string {
  const { p99Ms, idleBytes } = SUBSCRIBER_TARGETS;
  const measured = part(
    "Live sales: subscribers of a hot book and 100 quiet ones over WebSockets",
    [
      `One server process, its subscribers in load processes of their own (${count(plan.perLoadProcess)} each): ${SUBSCRIBER_MIX.hotPage} in ${SUBSCRIBER_PERIOD} on the hot book's page, ${SUBSCRIBER_MIX.quietPage} on a quiet book's page, ${SUBSCRIBER_MIX.shelf} on a shelf of ${SHELF_BOOKS} books (the hot one and quiet ones).`,
      `${count(plan.purchasesPerSecond)} purchases a second of the hot book and ${count(plan.quietPurchasesPerSecond)} a second over the ${count(plan.quietBooks)} quiet books in turn, for ${plan.seconds} s, written straight to the database (${database}).`,
      "Latency from the purchase's write to the value's arrival; load CPU: the load processes' own, from the first purchase to their final counts; bench CPU: the bench's process (the purchases' writes, and the stand-in when it runs there). Conflated: values replaced by a later count before they were sent. The bare baseline sends the same change feed's counts as plain WebSocket messages: no GraphQL, no protocol, no checks.",
      `Memory per idle subscriber: held after full garbage collections (heap in use and external memory, the target's measure), and resident memory grown (RSS, allocator slack included).`,
      `Issue 37's targets: p99 under ${count(p99Ms)} ms with 10,000 subscribers at 100 purchases a second; an idle subscriber under ${bytes(idleBytes)}.`,
    ].join(" "),
    table(rows, [
      ["server", (row) => row.server],
      ["subscribers", (row) => count(row.subscribers)],
      ["hot purchases/s", (row) => count(row.purchasesPerSecond)],
      ["p50 ms", (row) => ms(row.p50Ms)],
      ["p99 ms", (row) => ms(row.p99Ms)],
      ["delivered / expected", (row) => `${count(row.delivered)} / ${count(row.expected)}`],
      ["conflated", (row) => count(row.conflated)],
      ["at the final counts", (row) => `${count(row.atFinalCount)} / ${count(row.subscribers)}`],
      ["held per idle subscriber", (row) => bytes(row.retainedBytesPerSubscriber)],
      ["RSS per idle subscriber", (row) => bytes(row.idleBytesPerSubscriber)],
      ["CPU ms per 1,000 events", (row) => ms(row.cpuMsPerThousandEvents)],
      ["CPU ms per purchase", (row) => ms(row.cpuMsPerPurchase)],
      ["load CPU ms per 1,000 events", (row) => ms(row.loadCpuMsPerThousandEvents)],
      ["bench CPU ms per purchase", (row) => ms(row.benchCpuMsPerPurchase)],
    ]),
  );
  const profiles = rows.flatMap((row) => (row.profiles ?? []).map((profile) => renderSubscriberProfile(row.subscribers, profile)));
  return [measured, ...profiles].join("\n\n");
}

/** One process's profile over an API row's purchases (`--subscriber-profile`): its parts and top lines, as shares of the busy samples. */
function renderSubscriberProfile(subscribers: number, { process, file, summary }: SubscriberProfile): string {
  return part(
    `${process}, ${count(subscribers)} subscribers: where the CPU goes (self time)`,
    `Profiled over the row's purchases until every subscriber had its final counts (\`${file}\`); shares of the busy samples.`,
    [
      table(summary.parts.slice(0, TOP_PARTS), [
        ["part", (entry) => `\`${entry.part}\``],
        ["share", (entry) => percent(entry.share)],
      ]),
      table(summary.lines.slice(0, TOP_LINES), [
        ["function", (line) => `\`${line.name}\``],
        ["part", (line) => line.part],
        ["share", (line) => percent(line.share)],
      ]),
    ].join("\n\n"),
  );
}

function renderVictim({ database, attackersPerKind, attackSeconds, phases, attackers, costs }: VictimResults): string {
  const codes = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([label, times]) => `${count(times)} ${label}`)
      .join(", ") || "0";
  const victim = part(
    "A cheap query beside attackers of every amplifying kind (issue 35)",
    `\`{ book(id: "1") { title purchaseCount } }\`, anonymous, sent every 50 ms: alone, beside ${attackersPerKind * attackers.length} clients ` +
      `sending it back to back, then for ${attackSeconds} s beside ${attackersPerKind} attackers of each kind sending back to back ` +
      `(\`test/support/victim-attacks.ts\`). The API uncached, in a process of its own on ${database}; the victim, the crowd and each kind's attackers in processes of their own. ` +
      `Issue 35's goal: p99 beside the attackers within ${VICTIM_TARGET.p99OverAlone}× its p99 alone, and no error.`,
    table(phases, [
      ["victim", (row) => row.phase],
      ["requests", (row) => count(row.requests)],
      ["p50 ms", (row) => ms(row.p50Ms)],
      ["p99 ms", (row) => ms(row.p99Ms)],
      ["p99 / alone", (row) => times(row.p99Ms / phases[0]!.p99Ms)],
      [
        "slowest three (ms at s sent)",
        (row) => row.slowest.map(({ ms: took, atSeconds }) => `${ms(took)} at ${atSeconds.toFixed(2)}`).join(", "),
      ],
      ["errors", (row) => codes(row.failures)],
    ]),
  );
  const attacks = part(
    "What the attackers got",
    "Each kind's answers by their codes; unexpected: any other code (DATABASE_UNAVAILABLE) or a 5xx.",
    table(attackers, [
      ["attack", (row) => row.kind],
      ["answers", (row) => codes(row.answers)],
      ["unexpected", (row) => row.unexpected],
    ]),
  );
  const perRequest = part(
    "What one request of each kind costs",
    `Each kind sent alone ${count(costs[0]?.requests ?? 0)} times one after another (after one that fills the memos): CPU time per request of the API's ` +
      "process and of the database's (when the bench started it), read from /proc, the commands the API sent, and the API's " +
      "event loop meanwhile (bench/processes/turns-probe.ts): turns by their CPU time, and `monitorEventLoopDelay`.",
    table(costs, [
      ["request", (row) => row.kind],
      ["API CPU ms", (row) => cpu(row.apiCpuMs)],
      ["database CPU ms", (row) => cpu(row.databaseCpuMs)],
      ["commands", (row) => row.commands.toFixed(1)],
      ["turns over 20 / 10 / 5 ms of CPU", ({ turns }) => `${turns.over20Ms} / ${turns.over10Ms} / ${turns.over5Ms}`],
      ["longest turn, CPU ms", (row) => cpu(row.turns.longestCpuMs)],
      ["loop delay max / p99 ms", ({ turns }) => `${turns.delayMaxMs.toFixed(0)} / ${turns.delayP99Ms.toFixed(1)}`],
    ]),
  );
  return [victim, attacks, perRequest].join("\n\n");
}

function renderShardTargeting({ shards, rows }: ShardTargetingResults): string {
  return part(
    `Shard targeting on ${shards} simulated shards`,
    "The stand-in routing as a mongos with the product's shard keys (docs/operations/sharding.md): the commands of each request, " +
      "how many reached more than one shard, and its transactions. The last three are the scatter-gather reads the document names.",
    table(rows, [
      ["request", (row) => row.request],
      ["commands", (row) => row.commands],
      ["on more than one shard", (row) => row.multiShardCommands],
      ["transactions", (row) => row.transactions],
      ["on more than one shard ", (row) => row.multiShardTransactions],
    ]),
  );
}

function renderScale({ rows, hotBooks, indexCost, searchFuzz }: ScaleResults): string {
  const scale = part(
    "Catalog size: eight typical requests on catalogs of each size",
    "Over HTTP, one request at a time. Commands / bytes sent / bytes received per request (medians); keys and documents " +
      'examined from `explain("executionStats")` of every read the request sent (a write\'s filter explained as the find that locates its document).',
    table(rows, [
      ["books", (row) => count(row.books)],
      ["request", (row) => row.scenario],
      ["median ms", (row) => ms(row.figures.medianMs)],
      ["p99 ms", (row) => ms(row.figures.p99Ms)],
      ["per request", (row) => wireCost(row.figures)],
      ["keys examined", (row) => count(row.keysExamined)],
      ["docs examined", (row) => count(row.docsExamined)],
      ["samples", (row) => row.figures.samples],
    ]),
  );
  const hot = part(
    `One outlier bought by ${hotBooks[0]?.clients ?? 0} clients at once, the API writing each purchase alone and then sharing writes`,
    "autocannon, a fixed number of purchases per row, one after the other on the same book; every acknowledged one checked to be " +
      "stored exactly once. Commands per purchase from the driver's monitoring; purchases per write from the API's own histogram. " +
      "Failed: answered with an error, by its code (REQUEST_TIMEOUT and DATABASE_UNAVAILABLE are transactions still meeting " +
      "write conflicts at the 10 s limits), each checked never to be stored twice.",
    table(hotBooks, [
      ["purchases", (row) => (row.keyedOnReplicaSet ? "with purchaseId, replica set" : "without purchaseId")],
      ["PURCHASE_BATCHING", (row) => (row.batching ? "on" : "off")],
      ["requests", (row) => count(row.requests)],
      ["purchases/s", (row) => count(row.requestsPerSecond)],
      ["p50 ms", (row) => row.p50Ms],
      ["p99 ms", (row) => row.p99Ms],
      ["commands/purchase", (row) => row.commandsPerPurchase.toFixed(2)],
      ["purchases/write", (row) => row.purchasesPerWrite.toFixed(1)],
      ["failed", (row) => failedWithCodes(row)],
    ]),
  );
  const index = part(
    "What the largest-books index costs a purchase",
    "Embedded purchases over HTTP with the `(purchase_count desc, _id)` index and without it, alternating in rounds.",
    table(
      [indexCost],
      [
        ["with index, median ms", (row) => ms(row.withIndexMs)],
        ["without, median ms", (row) => ms(row.withoutIndexMs)],
        ["with/without", (row) => times(row.withIndexMs / row.withoutIndexMs)],
      ],
    ),
  );
  const searches = part(
    "Issue 35's fuzz set of searches on a generated catalog of real words of each size",
    "The searches of `test/sales/search-cost.test.ts` (common and drawn words of the catalog, their prefixes of 1 to 4 letters, " +
      "a common word with a rare prefix), each with its window size and order: its window, its count and the next window, " +
      'every read explained (`explain("executionStats")`). Documents examined per book the windows asked for, the most over the set.',
    table(searchFuzz ?? [], [
      ["books", (row) => count(row.books)],
      ["searches", (row) => row.searches],
      ["answered", (row) => row.answered],
      ["refused SEARCH_TOO_BROAD", (row) => row.refused],
      ["max docs per book asked for", (row) => row.maxDocsPerResult.toFixed(2)],
    ]),
  );
  return [scale, hot, index, searches].join("\n\n");
}

/**
 * Two tables: the targets that gate the run (counts and invariants, exact on any machine: PASS or FAIL), and the
 * times, which depend on the machine and whatever else it runs, reported beside their goal and never failing it.
 */
export function renderTargets(targets: TargetCheck[]): string {
  const gating = targets.filter((check) => check.failsRun);
  const reported = targets.filter((check) => !check.failsRun);
  // A section of `--only` may have targets of one kind only: a heading over an empty table would say nothing.
  return [
    gating.length === 0
      ? null
      : part(
          "Targets that gate the run",
          "Counts and invariants, exact on any backend and machine: a FAIL here fails the run.",
          table(gating, [
            ["target", (check) => check.target],
            ["measured", (check) => check.measured],
            ["result", (check) => (check.pass ? "PASS" : "FAIL")],
          ]),
        ),
    reported.length === 0
      ? null
      : part(
          "Times, reported only",
          "Times depend on the machine and what else it runs: each is compared with its goal here, and none fails the run. " +
            "A goal not reached on a shared or busy machine says little; compare runs on one idle machine (BENCHMARKS.md).",
          table(reported, [
            ["goal", (check) => check.target],
            ["measured", (check) => check.measured],
            [
              "reached",
              (check) => (check.pass ? "yes" : check.measured === "not measured" ? "not measured in this run" : "no, on this machine"),
            ],
          ]),
        ),
  ]
    .filter((rendered) => rendered !== null)
    .join("\n\n");
}

// What each code means in this table, in words, so that a failed row reads as what happened.
const FAILURE_WORDS: Record<string, string> = {
  REQUEST_TIMEOUT: "still waiting on write conflicts at the 10 s limit",
  DATABASE_UNAVAILABLE: "the database overloaded",
  NO_ANSWER: "no HTTP answer",
};

function failedWithCodes(row: HotBookFigures): string {
  if (row.failures === 0) return "0";
  const codes = Object.entries(row.failureCodes).map(
    ([code, times]) => `${count(times)} ${code}${FAILURE_WORDS[code] ? ` (${FAILURE_WORDS[code]})` : ""}`,
  );
  return `${count(row.failures)} of ${count(row.requests)} answered with an error: ${codes.join(", ")}`;
}

const TOP_LINES = 12;
const TOP_PARTS = 10;

/** The profiles of the storefront listings: per process, milliseconds per request and per book by part, then each profile's top lines. */
export function renderProfiles({ database, node, folder, secondsPerLoad, rows }: ProfileResults): string {
  const processes = [
    { title: "API process", of: (row: ListingProfile) => row.api },
    { title: "database process", of: (row: ListingProfile) => row.database },
  ];
  const intro = part(
    "Where a storefront listing's CPU goes",
    `On Node ${node}, the API in a process of its own on ${database}; one load of ${secondsPerLoad} s per listing, profiled in both ` +
      `processes around that load only (profiles in \`${folder}\`). Shares are of the busy samples (all but idle); milliseconds are ` +
      "those shares of the CPU per request measured during the same load, the profiler's cost included. On a busy machine the shares " +
      "hold and the milliseconds do not.",
    table(rows, [
      ["listing", (row) => `${row.books} books`],
      ["req/s", (row) => count(row.requestsPerSecond)],
      ["API CPU ms/request", (row) => cpu(row.api.cpuMsPerRequest)],
      ["database CPU ms/request", (row) => cpu(row.database?.cpuMsPerRequest ?? Number.NaN)],
      ["API ms/book", (row) => cpu(row.api.cpuMsPerRequest / row.books)],
      ["database ms/book", (row) => cpu((row.database?.cpuMsPerRequest ?? Number.NaN) / row.books)],
      ["failed", (row) => row.failures],
    ]),
  );
  return [
    intro,
    ...processes.flatMap(({ title, of }) => {
      const profiled = rows.flatMap((row) => {
        const profile = of(row);
        return profile ? [{ books: row.books, profile }] : [];
      });
      return profiled.length === 0
        ? []
        : [renderParts(title, profiled), ...profiled.map(({ books, profile }) => renderTopLines(title, books, profile))];
    }),
  ].join("\n\n");
}

/** Milliseconds per request of each part at each listing size, and what one more book costs in it (from the smallest to the largest listing). */
function renderParts(title: string, profiled: { books: number; profile: ProcessProfile }[]): string {
  const msOf = (profile: ProcessProfile, name: string) =>
    (profile.summary.parts.find((entry) => entry.part === name)?.share ?? 0) * profile.cpuMsPerRequest;
  const [first, last] = [profiled[0]!, profiled.at(-1)!];
  const names = last.profile.summary.parts.slice(0, TOP_PARTS).map((entry) => entry.part);
  const perBook = (name: string) => (msOf(last.profile, name) - msOf(first.profile, name)) / (last.books - first.books);
  return part(
    `${title}: milliseconds per request by part`,
    `The ${TOP_PARTS} largest parts of the ${last.books}-book listing's profile; "per book" is the growth from ${first.books} to ${last.books} books over the books added.`,
    table(names, [
      ["part", (name) => `\`${name}\``],
      ...profiled.map(({ books, profile }): Column<string> => [`${books} books`, (name) => cpu(msOf(profile, name))]),
      ["per book", (name) => cpu(perBook(name))],
      [`share at ${last.books}`, (name) => percent(last.profile.summary.parts.find((entry) => entry.part === name)?.share ?? 0)],
    ]),
  );
}

function renderTopLines(title: string, books: number, { summary }: ProcessProfile): string {
  return part(
    `${title}, ${books}-book listing: top lines (self time)`,
    null,
    table(summary.lines.slice(0, TOP_LINES), [
      ["function", (line) => `\`${line.name}\``],
      ["part", (line) => line.part],
      ["share", (line) => percent(line.share)],
    ]),
  );
}
