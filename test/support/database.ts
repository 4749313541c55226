import { randomBytes } from "node:crypto";
import type { Db, Document, MongoClient } from "mongodb";
import { connectToDatabase } from "../../src/db/connection";
import { ensureSalesIndexes } from "../../src/sales/indexes";
import { CommandMonitor } from "./command-monitor";

export interface TestDatabase {
  db: Db;
  client: MongoClient;
  /** Commands sent since the last reset, as observed by the driver's command monitoring. */
  commands: CommandLog;
  /** The monitor behind `commands`, for what a name does not say: the commands as sent, bytes on the wire. */
  monitor: CommandMonitor;
  close(): Promise<void>;
}

export interface CommandLog {
  names(): string[];
  /** Commands on one collection, e.g. how many `find`s reached `extra_sales`. */
  on(collection: string): string[];
  /** The documents the commands sent back: a findAndModify's `value`, a find's first batch (one entry per command). */
  received(): Document[][];
  reset(): void;
}

/** The two deployments a test of transactional behaviour runs on, for `describe.each`: the run's database and the replica set beside it. */
export const RUN_AND_REPLICA_SET = [
  { deployment: "the run's database", replicaSet: false },
  { deployment: "a replica set", replicaSet: true },
];

/**
 * A freshly made database of its own for one test file, with indexes in place: on the server chosen for
 * the run, or with `replicaSet` on the replica set beside it (see database-process.ts), where keyed purchases are transactions,
 * or on the server at `uri` a test started for itself.
 */
export async function openTestDatabase({
  replicaSet = false,
  uri: ownUri,
}: { replicaSet?: boolean; uri?: string } = {}): Promise<TestDatabase> {
  const uri = ownUri ?? (replicaSet ? process.env.TEST_REPLICA_SET_URI : process.env.TEST_MONGODB_URI);
  if (!uri) throw new Error("TEST_MONGODB_URI is unset: run tests through jest, whose global setup chooses the database.");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const { client, db } = await connectToDatabase(uri, name, { monitorCommands: true }, { ensureIndexes: ensureSalesIndexes });

  const monitor = new CommandMonitor(client, { log: true });
  const commands: CommandLog = {
    names: () => monitor.log().map((command) => command.commandName),
    on: (collection) =>
      monitor
        .log()
        .filter(({ command, commandName }) => command[commandName] === collection)
        .map((command) => command.commandName),
    received: () => monitor.log().map((command) => documentsIn(command.reply)),
    reset: () => monitor.reset(),
  };
  return {
    db,
    client,
    commands,
    monitor,
    close: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}

/** What `run` answers, and how many commands it sent. */
export async function withCommandCount<T>(commands: CommandLog, run: () => Promise<T>): Promise<[T, number]> {
  commands.reset();
  const result = await run();
  return [result, commands.names().length];
}

/** What a reply carries back from the collection, leaving out the status fields every reply has and which vary by deployment. */
function documentsIn(reply: Document | undefined): Document[] {
  if (!reply) return [];
  if ("value" in reply) return reply.value === null ? [] : [reply.value as Document];
  const cursor = reply.cursor as { firstBatch?: Document[] } | undefined;
  return cursor?.firstBatch ?? [];
}

/** The keys and documents a read examined: explain("executionStats") of the command as the driver sent it, without its session fields. */
export async function examinedBy(db: Db, command: Document): Promise<{ keys: number; docs: number }> {
  const own = Object.fromEntries(Object.entries(command).filter(([key]) => !key.startsWith("$") && key !== "lsid"));
  const explained: Document = await db.command({ explain: own, verbosity: "executionStats" });
  const stats = (explained["executionStats"] ?? explained["stages"]?.[0]?.$cursor?.executionStats) as Document;
  return { keys: stats["totalKeysExamined"] as number, docs: stats["totalDocsExamined"] as number };
}
