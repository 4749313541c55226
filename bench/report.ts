import type { Environment } from "./environment";
import type { OperationFigures } from "./figures";
import type { HttpResults } from "./http";
import type { ReadResults, WholeListFigures } from "./reads";
import type { TargetCheck } from "./targets";
import type { ThroughputResults } from "./throughput";
import type { VersusBareResults } from "./versus-bare";
import type { WriteResults } from "./writes";
import type { HotBookFigures, ScaleResults } from "./catalog-scale";
import type { ShardTargetingResults } from "./shard-targeting";
import { SUBSCRIBER_TARGETS, type SubscriberResults } from "./subscribers";

export interface Report {
  mode: "quick" | "full";
  startedAt: string;
  durationSeconds: number;
  environment: Environment;
  writes: WriteResults;
  reads: ReadResults;
  http: HttpResults;
  throughput: ThroughputResults;
  versusBare: VersusBareResults;
  scale: ScaleResults;
  shardTargeting: ShardTargetingResults;
  subscribers: SubscriberResults;
  targets: TargetCheck[];
}

export function renderReport(report: Report): string {
  return [
    renderEnvironment(report),
    renderWrites(report.writes),
    renderPageReads(report.reads),
    renderWholeLists(report.reads),
    renderHttp(report.http),
    renderThroughput(report.throughput),
    renderVersusBare(report.versusBare),
    renderScale(report.scale),
    renderShardTargeting(report.shardTargeting),
    renderSubscribers(report.subscribers),
    renderTargets(report.targets),
  ].join("\n\n");
}

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

function renderPageReads({ pages }: ReadResults): string {
  return part(
    "Reads: one page of 20 buyers",
    "API: the GraphQL resolver's path (book through a DataLoader, then only the pages holding the window). " +
      "Chapter: the seed chapter's path (the book; beyond the embedded buyers, every extra_sales page, concatenated and sliced).",
    table(pages, [
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
    "Reads: the whole list in pages of 100",
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

export function renderVersusBare({ database, node, rounds, secondsPerLoad, rows }: VersusBareResults): string {
  return part(
    "The API against a bare Apollo Server 5 + Express + driver server",
    `Each in a process of its own on Node ${node}, on the same database (${database}); ${rounds} rounds of ${secondsPerLoad} s of load on each, ` +
      "alternating which goes first. Bare: one resolver per field, no limits, no access checks, no logs, no metrics (`bench/bare-api-process.ts`).",
    table(rows, [
      ["request", (row) => `\`${row.scenario}\``],
      ["ours req/s", (row) => count(row.oursRequestsPerSecond)],
      ["bare req/s", (row) => count(row.bareRequestsPerSecond)],
      ["ours / bare", (row) => times(row.oursOverBare)],
      ["by round", (row) => row.roundRatios.map((value) => value.toFixed(2)).join(", ")],
      ["CPU ms/request, ours / bare", (row) => `${row.oursCpuMsPerRequest.toFixed(2)} / ${row.bareCpuMsPerRequest.toFixed(2)}`],
      ["our commands/request", (row) => row.oursCommandsPerRequest.toFixed(2)],
      ["failed", (row) => row.failures],
    ]),
  );
}

export function renderSubscribers({ database, plan, rows }: SubscriberResults): string {
  const { p99Ms, idleBytes } = SUBSCRIBER_TARGETS;
  return part(
    "Live sales: subscribers of one hot book over WebSockets",
    [
      `One server process, its subscribers in load processes of their own (${count(plan.perLoadProcess)} each), ${count(plan.purchasesPerSecond)} purchases a second of the book for ${plan.seconds} s, written straight to the database (${database}).`,
      "Latency from the purchase's write to the value's arrival. The bare baseline sends the same change feed's counts as plain WebSocket messages: no GraphQL, no protocol, no checks.",
      `Issue 37's targets: p99 under ${count(p99Ms)} ms with 10,000 subscribers at 100 purchases a second; an idle subscriber under ${bytes(idleBytes)}.`,
    ].join(" "),
    table(rows, [
      ["server", (row) => row.server],
      ["subscribers", (row) => count(row.subscribers)],
      ["purchases/s", (row) => count(row.purchasesPerSecond)],
      ["p50 ms", (row) => ms(row.p50Ms)],
      ["p99 ms", (row) => ms(row.p99Ms)],
      ["delivered / expected", (row) => `${count(row.delivered)} / ${count(row.expected)}`],
      ["at the final count", (row) => `${count(row.atFinalCount)} / ${count(row.subscribers)}`],
      ["memory per idle subscriber", (row) => bytes(row.idleBytesPerSubscriber)],
      ["CPU ms per purchase", (row) => ms(row.cpuMsPerPurchase)],
      ["CPU µs per delivery", (row) => ms(row.cpuUsPerDelivery)],
    ]),
  );
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

function renderScale({ rows, hotBooks, indexCost }: ScaleResults): string {
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
  return [scale, hot, index].join("\n\n");
}

/**
 * Two tables: the targets that gate the run (counts and invariants, exact on any machine: PASS or FAIL), and the
 * times, which depend on the machine and whatever else it runs, reported beside their goal and never failing it.
 */
export function renderTargets(targets: TargetCheck[]): string {
  const gating = targets.filter((check) => check.failsRun);
  const reported = targets.filter((check) => !check.failsRun);
  return [
    part(
      "Targets that gate the run",
      "Counts and invariants, exact on any backend and machine: a FAIL here fails the run.",
      table(gating, [
        ["target", (check) => check.target],
        ["measured", (check) => check.measured],
        ["result", (check) => (check.pass ? "PASS" : "FAIL")],
      ]),
    ),
    part(
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
  ].join("\n\n");
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
