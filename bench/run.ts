import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../src/config";
import { parseFlags, readToolConfig, runToolAsMain, ToolFailure, UsageError, wholeNumberFlag, type ToolOutput } from "../src/cli/tool";
import { connectToDatabase, type DatabaseConnection } from "../src/db/connection";
import { selectDatabase, selectReplicaSet, type SelectedDatabase } from "../src/db/select-database";
import type { MongoClientOptions } from "mongodb";
import { startStandInApart, standInUri } from "./kit/database-apart";
import { describeEnvironment } from "./kit/environment";
import { benchmarkHttp, httpSteps } from "./scenarios/http";
import { CommandMonitor } from "./kit/monitor";
import { FULL_PLAN, LARGEST_CATALOG, QUICK_PLAN, type Plan } from "./kit/plan";
import { benchmarkScale, scaleSteps } from "./scenarios/catalog-scale";
import { benchmarkShardTargeting } from "./scenarios/shard-targeting";
import { startProgress } from "./kit/progress";
import { benchmarkReads, readSteps } from "./scenarios/reads";
import { renderProfiles, renderReport, renderTargets, SECTION_RENDERERS, type Report } from "./report";
import { checkTargets, SECTION_TARGETS, type Results, type TargetCheck } from "./targets";
import { benchmarkProfiles, profileSteps } from "./scenarios/profile";
import type { ShelfSource } from "./scenarios/shelf";
import { benchmarkThroughput, throughputSteps } from "./scenarios/throughput";
import { benchmarkVersusPeer, versusPeerSteps, type PeerName } from "./scenarios/versus-peer";
import { benchmarkWrites, writeSteps } from "./scenarios/writes";
import { benchmarkSubscribers, SUBSCRIBER_PLANS, subscriberSteps, type SubscriberPlan } from "./scenarios/subscribers";
import { ensureSalesIndexes } from "../src/sales/indexes";
import { benchmarkVictim, victimSteps } from "./scenarios/victim";

/** The sections `--only` names, in the order a run measures them, and where each one's results sit in the report. */
const SECTION_NAMES = {
  writes: "writes",
  reads: "reads",
  http: "http",
  throughput: "throughput",
  "versus-bare": "versusBare",
  "versus-mercurius": "versusMercurius",
  scale: "scale",
  "shard-targeting": "shardTargeting",
  subscribers: "subscribers",
  victim: "victim",
} as const satisfies Record<string, keyof Results>;

const USAGE = `Usage: npm run bench [-- --quick] [-- --largest-catalog] [-- --only <sections>] [-- --subscribers N,…] [-- --subscriber-profile] [-- --profile] [-- --soak]

Measures writes, reads and GraphQL over HTTP on the database the project selects
(MONGODB_URI, else a throwaway one), keyed purchases of a hot book on a replica set
(MONGODB_REPLICA_SET_URI, else the run's database if it is one, else the stand-in as one),
prints markdown tables and saves raw figures in bench/results/.

  --quick            fewer repetitions, shorter loads and no catalog of 1,000,002 books
  --largest-catalog  measure the catalog of 1,000,002 books in a quick run too (minutes more to seed)
  --only <sections>  only these sections, comma-separated, each printed with its own targets:
                     ${Object.keys(SECTION_NAMES).join(", ")}
                     (versus-bare: the API against a bare Apollo server, about 5 minutes, 2.5 with --quick;
                     versus-mercurius (issue 56): the same requests against Fastify 5 + Mercurius 16 compiling
                     with graphql-jit (jit: 1), with the bare server's schema and resolvers, as long;
                     take either's figures on an idle machine only;
                     subscribers: live sales' 1,000 and 10,000 subscribers against a bare WebSocket broadcast;
                     victim: a cheap query beside attackers of every amplifying kind, about 40 s)
  --subscribers N,…  the numbers of subscribers the subscribers section measures; e.g. 50 to try it out
  --subscriber-profile
                     with the subscribers section: CPU profiles over each API row's purchases of the API, the
                     first load process and the bench's own (the stand-in), saved in bench/results/profiles/
                     and summarized (top lines, parts) under its table
  --profile          only CPU profiles of the API and the stand-in under the 5-, 20- and 50-book
                     storefront listings, saved in bench/results/profiles/ (about 1 minute, less with --quick)
  --soak             only the long forms of the suite's chaos tests, through jest (TEST_SOAK=1): the API's connection
                     cut and restored 40 times on a replica set and 20 on the run's database (about 4 minutes;
                     npm test runs 12 and 4)
  --help             show this text`;

/** The test files whose long form TEST_SOAK=1 runs: what `npm test` checks over a few cycles, checked over many. */
const SOAK_TESTS = ["test/db/reconnection-chaos.test.ts"];

/**
 * A database of the run's own, watched by command monitoring, dropped when closed; with the indexes in place unless `indexes` is
 * false (a catalog loaded first and indexed after), and `options` for the client.
 */
async function openBenchDatabase(
  uri: string,
  name: string,
  { indexes = true, ...options }: { indexes?: boolean } & MongoClientOptions = {},
): Promise<DatabaseConnection & { monitor: CommandMonitor }> {
  const connection = await connectToDatabase(
    uri,
    name,
    { monitorCommands: true, ...options },
    indexes ? { ensureIndexes: ensureSalesIndexes } : {},
  );
  return {
    ...connection,
    monitor: new CommandMonitor(connection.client),
    close: async () => {
      await connection.db.dropDatabase();
      await connection.close();
    },
  };
}

type SectionName = keyof typeof SECTION_NAMES;
type Section = keyof Results;

/** What every section is given: the run's database, a name for the databases it makes, the settings and the plan. */
interface RunContext {
  database: SelectedDatabase;
  name: string;
  config: Config;
  plan: Plan;
  /** Live sales' subscribers: the plan's mode, with `--subscribers` counts when given. */
  subscriberPlan: SubscriberPlan;
  env: NodeJS.ProcessEnv;
  output: ToolOutput;
}

function parseSections(only: string): Section[] {
  const named = only.split(",").map((name) => name.trim());
  const unknown = named.filter((name) => !Object.hasOwn(SECTION_NAMES, name));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown section ${unknown.map((name) => `"${name}"`).join(", ")}; choose from ${Object.keys(SECTION_NAMES).join(", ")}`,
    );
  return (Object.keys(SECTION_NAMES) as SectionName[]).filter((name) => named.includes(name)).map((name) => SECTION_NAMES[name]);
}

async function runBench(args: string[], env: NodeJS.ProcessEnv, output: ToolOutput): Promise<void> {
  const flags = parseFlags(args, {
    quick: { type: "boolean" },
    "largest-catalog": { type: "boolean" },
    only: { type: "string" },
    profile: { type: "boolean" },
    subscribers: { type: "string" },
    "subscriber-profile": { type: "boolean" },
    soak: { type: "boolean" },
  });
  if (flags.soak) return runSoak(env);
  const sections = flags.only === undefined ? null : parseSections(flags.only);
  const chosen = flags.quick ? QUICK_PLAN : FULL_PLAN;
  const plan =
    flags["largest-catalog"] && !chosen.scale.catalogSizes.includes(LARGEST_CATALOG)
      ? { ...chosen, scale: { ...chosen.scale, catalogSizes: [...chosen.scale.catalogSizes, LARGEST_CATALOG] } }
      : chosen;
  const config = readToolConfig(env);
  const started = Date.now();
  // Figures move with the Node version (Node 24 serves 1.4 to 2.3 times Node 20's requests): say which one ran.
  output.err(`Node ${process.version} (${process.execPath})`);
  const database = await selectDatabase(config.mongodbUri);
  output.err(`Database: ${database.description}`);
  // A random name: a run never touches data it did not write, and drops only what it made.
  const subscriberPlan = {
    ...SUBSCRIBER_PLANS[plan.mode],
    ...(flags.subscribers && { subscriberCounts: flags.subscribers.split(",").map((value) => wholeNumberFlag(value, "subscribers", 0)) }),
    ...(flags["subscriber-profile"] && { profileFolder: profileFolder(started) }),
  };
  const context: RunContext = { database, name: `bench_${randomBytes(4).toString("hex")}`, config, plan, subscriberPlan, env, output };
  try {
    if (flags.profile) return await runProfiles(context, started);
    if (sections) return await runSections(context, sections);
    await runEverything(context, started);
  } finally {
    await database.stop();
  }
}

/** The soak tests' long form under jest, with its own global set-up (the run's database); fails when a test does. */
async function runSoak(env: NodeJS.ProcessEnv): Promise<void> {
  const jest = spawn(
    process.execPath,
    [require.resolve("jest/bin/jest"), "--selectProjects", "integration", "--maxWorkers=1", "--runTestsByPath", ...SOAK_TESTS],
    { env: { ...env, TEST_SOAK: "1" }, stdio: "inherit" },
  );
  const [code] = (await once(jest, "exit")) as [number | null];
  if (code !== 0) throw new ToolFailure(`the soak tests failed (jest exited with ${code}): see jest's report above`);
}

/** Every section, the report with every target, and the raw figures saved; exact failures fail the run. */
async function runEverything(context: RunContext, started: number): Promise<void> {
  const { database, name, config, plan, output } = context;
  const { db, close } = await openBenchDatabase(database.uri, name);
  const environment = await describeEnvironment(database, db, config).finally(() => close());
  const results: Results = {
    writes: await SECTIONS.writes(context),
    reads: await SECTIONS.reads(context),
    http: await SECTIONS.http(context),
    throughput: await SECTIONS.throughput(context),
    versusBare: await SECTIONS.versusBare(context),
    versusMercurius: await SECTIONS.versusMercurius(context),
    scale: await SECTIONS.scale(context),
    shardTargeting: await SECTIONS.shardTargeting(context),
    subscribers: await SECTIONS.subscribers(context),
    victim: await SECTIONS.victim(context),
  };
  const report: Report = {
    mode: plan.mode,
    startedAt: new Date(started).toISOString(),
    durationSeconds: (Date.now() - started) / 1000,
    environment,
    ...results,
    targets: checkTargets(results),
  };
  output.out(renderReport(report));
  output.err(`Raw figures: ${saveResults(report, `${report.startedAt.replace(/[:.]/g, "-")}.json`)}`);
  failIfBroken(report.targets, violationsOf(report));
}

/** The chosen sections only, each rendered with the targets it can be checked against alone. */
async function runSections(context: RunContext, sections: Section[]): Promise<void> {
  const measured: Partial<Results> = {};
  const [rendered, targets]: [string[], TargetCheck[]] = [[], []];
  for (const section of sections) {
    const results = await SECTIONS[section](context);
    Object.assign(measured, { [section]: results });
    const checks = (SECTION_TARGETS[section] as (results: Results[typeof section]) => TargetCheck[])(results);
    rendered.push((SECTION_RENDERERS[section] as (results: Results[typeof section]) => string)(results), renderTargets(checks));
    targets.push(...checks);
  }
  context.output.out(rendered.join("\n\n"));
  failIfBroken(targets, violationsOf(measured));
}

/** A folder of the run's own for its CPU profiles, made now. */
function profileFolder(started: number): string {
  const folder = join(RESULTS, "profiles", new Date(started).toISOString().replace(/[:.]/g, "-"));
  mkdirSync(folder, { recursive: true });
  return folder;
}

async function runProfiles({ database, name, config, plan, output }: RunContext, started: number): Promise<void> {
  const folder = profileFolder(started);
  const profiles = await section("profiles", profileSteps(plan.profile), (progress) =>
    benchmarkProfiles(shelfSource({ database, name, config }, "profile"), plan.profile, folder, progress),
  );
  output.out(renderProfiles(profiles));
  output.err(`Profiles: ${folder}`);
}

/** The run's database for a section that seeds the shelf, in a database of the run's name and the section's `suffix`. */
function shelfSource({ database, name, config }: Pick<RunContext, "database" | "name" | "config">, suffix: string): ShelfSource {
  return { database, open: (uri) => openBenchDatabase(uri, `${name}_${suffix}`), config };
}

/** Each section: its progress bar, the databases it makes (dropped after it), its measurement. */
const SECTIONS = {
  writes: ({ database, name, config, plan }: RunContext) =>
    withBenchDatabase(database.uri, `${name}_writes`, ({ db, monitor }) =>
      section("writes", writeSteps(plan.writes), (progress) => benchmarkWrites(db, monitor, config, plan.writes, progress)),
    ),
  reads: ({ database, name, config, plan }: RunContext) =>
    withBenchDatabase(database.uri, `${name}_reads`, ({ db, monitor }) =>
      section("reads", readSteps(plan.reads), (progress) => benchmarkReads(db, monitor, config, plan.reads, progress)),
    ),
  http: ({ database, name, config, plan }: RunContext) =>
    withBenchDatabase(database.uri, `${name}_http`, ({ db, monitor }) =>
      section("http", httpSteps(plan.http), (progress) => benchmarkHttp(db, monitor, config, plan.http, progress)),
    ),
  throughput: ({ database, name, config, plan }: RunContext) =>
    section("throughput", throughputSteps(plan.http), (progress) =>
      benchmarkThroughput(shelfSource({ database, name, config }, "apart"), plan.http, progress),
    ),
  versusBare: (context: RunContext) => versusPeer(context, "bare"),
  versusMercurius: (context: RunContext) => versusPeer(context, "mercurius"),
  scale: async ({ database, name, config, plan, env, output }: RunContext) => {
    const replicaSet = await selectReplicaSet(database, env.MONGODB_REPLICA_SET_URI);
    output.err(`Keyed purchases on a replica set: ${replicaSet.description}`);
    // The stand-in holds the catalogs in its heap: in a process of its own, with the heap BENCHMARKS.md asks for.
    const standIn = database.kind === "offline-server" ? await startStandInApart({ nodeOptions: SCALE_STAND_IN_NODE_OPTIONS }) : null;
    const uri = standIn ? standInUri(standIn) : database.uri;
    if (standIn)
      output.err(`Catalog sizes: the offline stand-in in a process of its own (${uri}, ${SCALE_STAND_IN_NODE_OPTIONS.join(" ")})`);
    return section("scale", scaleSteps(plan.scale), (progress) =>
      benchmarkScale(
        (suffix, options) => openBenchDatabase(uri, `${name}_${suffix}`, { ...options, ...SCALE_CLIENT_OPTIONS }),
        (suffix) => openBenchDatabase(replicaSet.uri, `${name}_${suffix}`),
        config,
        plan.scale,
        progress,
      ),
    ).finally(async () => {
      await standIn?.stop();
      await replicaSet.stop();
    });
  },
  // Counts on the stand-in routing as a mongos over simulated shards, whatever database the rest ran on.
  shardTargeting: (_context: RunContext) => section("shard targeting", 1, () => benchmarkShardTargeting()),
  // A replica set of its own: change streams need one.
  subscribers: async ({ database, name, config, subscriberPlan, env, output }: RunContext) => {
    const replicaSet = await selectReplicaSet(database, env.MONGODB_REPLICA_SET_URI);
    output.err(`Live sales' subscribers on a replica set: ${replicaSet.description}`);
    return section("subscribers", subscriberSteps(subscriberPlan), (progress) =>
      benchmarkSubscribers(replicaSet, (uri) => openBenchDatabase(uri, `${name}_live`), config, subscriberPlan, progress),
    ).finally(() => replicaSet.stop());
  },
  victim: ({ database, name, config, plan }: RunContext) =>
    section("victim", victimSteps(), (progress) =>
      benchmarkVictim(database, (uri) => openBenchDatabase(uri, `${name}_victim`), config, plan.victim, progress),
    ),
} satisfies { [Name in Section]: (context: RunContext) => Promise<Results[Name]> };

/** The API against one peer, on a shelf of the section's own (in a database named after the peer). */
function versusPeer({ database, name, config, plan }: RunContext, peer: PeerName) {
  return section(`versus ${peer}`, versusPeerSteps(plan.versusPeer), (progress) =>
    benchmarkVersusPeer(shelfSource({ database, name, config }, peer), peer, plan.versusPeer, progress),
  );
}

/** The heap of the stand-in that holds the scale section's catalogs: the 1,000,002-book ones need about 11 GB (BENCHMARKS.md). */
const SCALE_STAND_IN_NODE_OPTIONS = ["--max-old-space-size=14336"];
/**
 * Building an index over a 1,000,002-book catalog is one command that holds the stand-in for a minute or more, as mongod's
 * index build holds the command: the driver's heartbeat must not give the server up meanwhile (its socket timeout is
 * connectTimeoutMS), which would cut the connection the command runs on.
 */
const SCALE_CLIENT_OPTIONS: MongoClientOptions = { connectTimeoutMS: 30 * 60_000 };

async function withBenchDatabase<T>(
  uri: string,
  name: string,
  run: (database: DatabaseConnection & { monitor: CommandMonitor }) => Promise<T>,
) {
  const database = await openBenchDatabase(uri, name);
  try {
    return await run(database);
  } finally {
    await database.close();
  }
}

async function section<T>(name: string, steps: number, run: (progress: ReturnType<typeof startProgress>) => Promise<T>): Promise<T> {
  const progress = startProgress(name, steps);
  try {
    return await run(progress);
  } finally {
    progress.done();
  }
}

const RESULTS = join(__dirname, "results");

function saveResults(report: Report, fileName: string): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, fileName);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** Only exact failures (broken invariants, wrong command or byte counts) fail the run; see BENCHMARKS.md. */
function failIfBroken(targets: TargetCheck[], violations: string[]): void {
  const failed = targets.filter((check) => check.failsRun && !check.pass);
  if (failed.length === 0) return;
  throw new ToolFailure(
    [
      ...failed.map((check) => `FAILED: ${check.target}: ${check.measured}`),
      ...violations.map((violation) => `INVARIANT BROKEN: ${violation}`),
    ].join("\n"),
  );
}

function violationsOf({ writes, reads, http, scale }: Partial<Results>): string[] {
  return [writes, reads, http, scale].flatMap((section) => section?.violations ?? []);
}

runToolAsMain({ usage: USAGE, run: runBench });
