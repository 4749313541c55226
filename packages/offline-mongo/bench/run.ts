import { MongoClient, ObjectId, type Collection, type Db } from "mongodb";
import { parseArgs } from "node:util";
import { startOfflineServer } from "../src";
import { explainCommand, planShape } from "../test/explain";
import { OPERATIONS, type Book, type Operation } from "./operations";

const USAGE = `Usage: npm run bench:offline-mongo [-- --full] [-- --rounds N]

Benchmarks the offline stand-in's reads at 1,000 and 100,000 documents (and 1,000,000 with --full):
time per operation at each size, the ratio of the largest to the smallest (target: within 2x),
keys and documents examined (asserted: the run fails when explain's figures differ from mongod's),
and the memory the largest collection and its indexes take.

  --full       also 1,000,000 documents (about a minute of seeding)
  --rounds N   measuring rounds, each running every operation at every size (default 5)
  --help       show this text`;

const QUICK_SIZES = [1_000, 100_000];
const FULL_SIZES = [...QUICK_SIZES, 1_000_000];
const TARGET_RATIO = 2;
const BATCH = 5_000;
const WARM_UP = 20;
const PER_ROUND = 40;

interface SizeUnderTest {
  readonly size: number;
  readonly collection: Collection<Book>;
  readonly ids: readonly ObjectId[];
  /** Milliseconds spent per operation, summed over rounds. */
  readonly spent: Map<string, number>;
}

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function megabytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** _ids made up front, increasing as the driver's would be, so that picking one costs nothing while timing. */
function makeIds(size: number): ObjectId[] {
  const base = Math.floor(Date.now() / 1000) - size;
  return Array.from({ length: size }, (_, i) => ObjectId.createFromTime(base + i));
}

/** Inserts `ids.length` books in batches, telling progress on stderr every tenth. */
async function seed(collection: Collection<Book>, ids: readonly ObjectId[]): Promise<void> {
  const started = Date.now();
  let reported = 0;
  for (let from = 0; from < ids.length; from += BATCH) {
    const batch = ids
      .slice(from, from + BATCH)
      .map((_id, k) => ({ _id, n: from + k, title: `Book ${from + k}`, price: ((from + k) * 37) % 1000 }));
    await collection.insertMany(batch, { ordered: false });
    const done = from + batch.length;
    if (done * 10 >= (reported + 1) * ids.length) {
      reported = Math.floor((done * 10) / ids.length);
      process.stderr.write(
        `seeding ${count(ids.length)}: ${count(done)} (${reported * 10}%) ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    }
  }
}

async function prepare(db: Db, size: number): Promise<SizeUnderTest & { bytes: number }> {
  const ids = makeIds(size);
  collectGarbage();
  const before = process.memoryUsage();
  const collection = db.collection<Book>(`books_${size}`);
  await collection.createIndex({ n: 1 });
  await seed(collection, ids);
  collectGarbage();
  const after = process.memoryUsage();
  return { size, collection, ids, spent: new Map(), bytes: after.heapUsed + after.external - before.heapUsed - before.external };
}

/** Each operation's explain at one size against mongod's plan and figures; the differences, described. */
async function mismatches(target: SizeUnderTest): Promise<string[]> {
  const found: string[] = [];
  for (const operation of OPERATIONS) {
    const run = await explainCommand(target.collection, operation.explain(target.collection, target.ids, 1));
    const measured = { stages: planShape(run.winningPlan), keys: run.totalKeysExamined, docs: run.totalDocsExamined };
    const expected = { stages: operation.stages, keys: operation.keysExamined, docs: operation.docsExamined };
    if (JSON.stringify(measured) !== JSON.stringify(expected)) {
      found.push(
        `${operation.name} at ${count(target.size)}: explain gave ${JSON.stringify(measured)}, mongod gives ${JSON.stringify(expected)}`,
      );
    }
  }
  return found;
}

async function repeat(target: SizeUnderTest, operation: Operation, from: number, times: number): Promise<number> {
  const started = performance.now();
  for (let i = from; i < from + times; i++) await operation.run(target.collection, target.ids, i);
  return performance.now() - started;
}

/**
 * Rounds interleave the sizes, so that the machine's load at any moment weighs on every size alike
 * and the ratios compare like with like.
 */
async function measure(targets: readonly SizeUnderTest[], rounds: number): Promise<void> {
  for (const target of targets) for (const operation of OPERATIONS) await repeat(target, operation, 0, WARM_UP);
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      for (const operation of OPERATIONS) {
        const spent = await repeat(target, operation, WARM_UP + round * PER_ROUND, PER_ROUND);
        target.spent.set(operation.name, (target.spent.get(operation.name) ?? 0) + spent);
      }
    }
    process.stderr.write(`measuring: round ${round + 1}/${rounds}\n`);
  }
}

function report(targets: readonly SizeUnderTest[], rounds: number): { table: string; overTarget: string[] } {
  const smallest = targets[0] as SizeUnderTest;
  const largest = targets[targets.length - 1] as SizeUnderTest;
  const perOp = (target: SizeUnderTest, operation: Operation) => ((target.spent.get(operation.name) ?? 0) * 1000) / (rounds * PER_ROUND);
  const header = `| operation | ${targets.map((t) => `µs/op at ${count(t.size)}`).join(" | ")} | ${count(largest.size)} vs ${count(smallest.size)} | keys | docs |`;
  const overTarget: string[] = [];
  const rows = OPERATIONS.map((operation) => {
    const ratio = perOp(largest, operation) / perOp(smallest, operation);
    if (ratio > TARGET_RATIO) overTarget.push(`${operation.name}: ${ratio.toFixed(2)}x`);
    const times = targets.map((t) => perOp(t, operation).toFixed(0)).join(" | ");
    return `| ${operation.name} | ${times} | ${ratio.toFixed(2)}x | ${operation.keysExamined} | ${operation.docsExamined} |`;
  });
  return { table: [header, `|${"---|".repeat(targets.length + 4)}`, ...rows].join("\n"), overTarget };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { full: { type: "boolean" }, rounds: { type: "string" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const rounds = Number(values.rounds ?? "5");
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number above 0, not ${values.rounds}`);
  if ((globalThis as { gc?: unknown }).gc === undefined) process.stderr.write("(run node with --expose-gc for steadier memory figures)\n");
  const server = await startOfflineServer();
  const client = new MongoClient(server.uri, { directConnection: true });
  try {
    const db = client.db("offline_mongo_bench");
    const prepared = [];
    for (const size of values.full === true ? FULL_SIZES : QUICK_SIZES) prepared.push(await prepare(db, size));
    const largest = prepared[prepared.length - 1] as SizeUnderTest & { bytes: number };
    const failures = (await Promise.all(prepared.map(mismatches))).flat();
    await measure(prepared, rounds);
    const { table, overTarget } = report(prepared, rounds);
    process.stdout.write(`\n${table}\n\n`);
    process.stdout.write(
      `Memory for ${count(largest.size)} documents with the _id and n indexes (heap + external, after GC): ${megabytes(largest.bytes)}; process RSS now ${megabytes(process.memoryUsage().rss)}\n`,
    );
    process.stdout.write(
      overTarget.length === 0
        ? `Every operation within ${TARGET_RATIO}x.\n`
        : `Over the ${TARGET_RATIO}x target: ${overTarget.join(", ")}\n`,
    );
    for (const failure of failures) process.stderr.write(`MISMATCH ${failure}\n`);
    process.stdout.write(failures.length === 0 ? "Keys and documents examined: as mongod reports, at every size.\n" : "");
    return failures.length === 0 ? 0 : 1;
  } finally {
    await client.close();
    await server.stop();
  }
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
