import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../src/config";
import { parseFlags, readToolConfig, runToolAsMain, ToolFailure, wholeNumberFlag, type ToolOutput } from "../src/cli/tool";
import { connectToDatabase, type DatabaseConnection } from "../src/db/connection";
import { selectDatabase, selectReplicaSet, type SelectedDatabase } from "../src/db/select-database";
import { describeEnvironment } from "./environment";
import { benchmarkHttp, httpSteps } from "./http";
import { CommandMonitor } from "./monitor";
import { FULL_PLAN, LARGEST_CATALOG, QUICK_PLAN, type Plan } from "./plan";
import { benchmarkScale, scaleSteps } from "./catalog-scale";
import { benchmarkShardTargeting } from "./shard-targeting";
import { startProgress } from "./progress";
import { benchmarkReads, readSteps } from "./reads";
import { renderReport, renderSubscribers, renderTargets, renderVersusBare, type Report } from "./report";
import { benchmarkSubscribers, SUBSCRIBER_PLANS, subscriberSteps } from "./subscribers";
import { checkTargets, versusBareTargets } from "./targets";
import { benchmarkThroughput, throughputSteps } from "./throughput";
import { benchmarkVersusBare, versusBareSteps } from "./versus-bare";
import { benchmarkWrites, writeSteps } from "./writes";
import { ensureSalesIndexes } from "../src/sales/indexes";

const USAGE = `Usage: npm run bench [-- --quick] [-- --largest-catalog] [-- --versus-bare-only] [-- --subscribers-only [--subscribers N,…]]

Measures writes, reads and GraphQL over HTTP on the database the project selects
(MONGODB_URI, else a throwaway one), keyed purchases of a hot book on a replica set
(MONGODB_REPLICA_SET_URI, else the run's database if it is one, else the stand-in as one),
prints markdown tables and saves raw figures in bench/results/.

  --quick            fewer repetitions, shorter loads and no catalog of 1,000,002 books
  --largest-catalog  measure the catalog of 1,000,002 books in a quick run too (minutes more to seed)
  --versus-bare-only only the API against a bare Apollo server (about 2 minutes, 1 with --quick)
  --subscribers-only only live sales' subscribers against a bare WebSocket baseline
  --subscribers N,…  the numbers of subscribers measured (default 1,000 and 10,000); e.g. 50 to try the section out
  --help             show this text`;

/** A database of the run's own, with the indexes in place, watched by command monitoring; dropped when closed. */
async function openBenchDatabase(uri: string, name: string): Promise<DatabaseConnection & { monitor: CommandMonitor }> {
  const connection = await connectToDatabase(uri, name, { monitorCommands: true }, { ensureIndexes: ensureSalesIndexes });
  return {
    ...connection,
    monitor: new CommandMonitor(connection.client),
    close: async () => {
      await connection.db.dropDatabase();
      await connection.close();
    },
  };
}

async function runBench(args: string[], env: NodeJS.ProcessEnv, output: ToolOutput): Promise<void> {
  const flags = parseFlags(args, {
    quick: { type: "boolean" },
    "largest-catalog": { type: "boolean" },
    "versus-bare-only": { type: "boolean" },
    "subscribers-only": { type: "boolean" },
    subscribers: { type: "string" },
  });
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
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const versusBare = (progressName: string) =>
    section(progressName, versusBareSteps(plan.versusBare), (progress) =>
      benchmarkVersusBare(database, (uri) => openBenchDatabase(uri, `${name}_bare`), config, plan.versusBare, progress),
    );
  const subscriberPlan = {
    ...SUBSCRIBER_PLANS[plan.mode],
    ...(flags.subscribers && { subscriberCounts: flags.subscribers.split(",").map((value) => wholeNumberFlag(value, "subscribers", 0)) }),
  };
  // A replica set of its own: change streams need one, and the section may run alone.
  const liveSales = async () => {
    const replicaSet = await selectReplicaSet(database, env.MONGODB_REPLICA_SET_URI);
    output.err(`Live sales' subscribers on a replica set: ${replicaSet.description}`);
    return section("subscribers", subscriberSteps(subscriberPlan), (progress) =>
      benchmarkSubscribers(replicaSet, (uri) => openBenchDatabase(uri, `${name}_live`), config, subscriberPlan, progress),
    ).finally(() => replicaSet.stop());
  };
  try {
    if (flags["subscribers-only"]) {
      output.out(renderSubscribers(await liveSales()));
      return;
    }
    if (flags["versus-bare-only"]) {
      const results = await versusBare("versus bare");
      output.out([renderVersusBare(results), renderTargets(versusBareTargets(results))].join("\n\n"));
      return;
    }
    const { environment, writes, reads } = await benchmarkDomain(database, name, config, plan);
    const web = await openBenchDatabase(database.uri, `${name}_http`);
    const http = await section("http", httpSteps(plan.http), (progress) =>
      benchmarkHttp(web.db, web.monitor, config, plan.http, progress),
    ).finally(() => web.close());
    const throughput = await section("throughput", throughputSteps(plan.http), (progress) =>
      benchmarkThroughput(database, (uri) => openBenchDatabase(uri, `${name}_apart`), config, plan.http, progress),
    );
    const versus = await versusBare("versus bare");
    const replicaSet = await selectReplicaSet(database, env.MONGODB_REPLICA_SET_URI);
    output.err(`Keyed purchases on a replica set: ${replicaSet.description}`);
    const scale = await section("scale", scaleSteps(plan.scale), (progress) =>
      benchmarkScale(
        (suffix) => openBenchDatabase(database.uri, `${name}_${suffix}`),
        (suffix) => openBenchDatabase(replicaSet.uri, `${name}_${suffix}`),
        config,
        plan.scale,
        progress,
      ),
    ).finally(() => replicaSet.stop());
    // Counts on the stand-in routing as a mongos over simulated shards, whatever database the rest ran on.
    const shardTargeting = await section("shard targeting", 1, () => benchmarkShardTargeting());
    const subscribers = await liveSales();

    const report: Report = {
      mode: plan.mode,
      startedAt: new Date(started).toISOString(),
      durationSeconds: (Date.now() - started) / 1000,
      environment,
      writes,
      reads,
      http,
      throughput,
      versusBare: versus,
      scale,
      shardTargeting,
      subscribers,
      targets: checkTargets({ writes, reads, http, throughput, versusBare: versus, scale, shardTargeting }),
    };
    output.out(renderReport(report));
    output.err(`Raw figures: ${saveResults(report)}`);
    failIfBroken(report);
  } finally {
    await database.stop();
  }
}

/** Writes and reads, on a database dropped before the HTTP part so that a 1,000,000-purchase book does not weigh on it. */
async function benchmarkDomain(database: SelectedDatabase, name: string, config: Config, plan: Plan) {
  const { db, monitor, close } = await openBenchDatabase(database.uri, name);
  try {
    const environment = await describeEnvironment(database, db, config);
    const writes = await section("writes", writeSteps(plan.writes), (progress) =>
      benchmarkWrites(db, monitor, config, plan.writes, progress),
    );
    const reads = await section("reads", readSteps(plan.reads), (progress) => benchmarkReads(db, monitor, config, plan.reads, progress));
    return { environment, writes, reads };
  } finally {
    await close();
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

function saveResults(report: Report): string {
  const folder = join(__dirname, "results");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${report.startedAt.replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** Only exact failures (broken invariants, wrong command or byte counts) fail the run; see BENCHMARKS.md. */
function failIfBroken(report: Report): void {
  const violations = [...report.writes.violations, ...report.reads.violations, ...report.http.violations, ...report.scale.violations];
  const failed = report.targets.filter((check) => check.failsRun && !check.pass);
  if (failed.length === 0) return;
  throw new ToolFailure(
    [
      ...failed.map((check) => `FAILED: ${check.target}: ${check.measured}`),
      ...violations.map((violation) => `INVARIANT BROKEN: ${violation}`),
    ].join("\n"),
  );
}

runToolAsMain({ usage: USAGE, run: runBench });
