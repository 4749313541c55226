import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Config } from "@jest/types";
import type { DatabaseKind } from "../../src/db/select-database";

declare global {
  // Handed from setup to teardown, which jest runs in the same process.
  var testDatabaseProcesses: ChildProcess[] | undefined;
}

/**
 * Chooses the database the run uses, says which, and hands its URIs to every test worker: one database
 * process for each of jest's workers (test/support/database-process.ts), so that files running side by side never
 * share a server, its fail points (server-wide, test/sales/fail-points.test.ts) or its one event loop;
 * test/support/worker-database.ts hands each worker its own (JEST_WORKER_ID) as TEST_MONGODB_URI and
 * TEST_REPLICA_SET_URI. Each runs in a process of its own, so the stand-in's work never shares a test
 * worker's event loop. Apart from where it runs, it is the database `selectDatabase` chooses.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  // The stand-in refuses, as mongod's notablescan does, any query only a collection scan could answer:
  // a product query that would scan a whole collection fails its test. OFFLINE_MONGO_NOTABLESCAN=0 turns it off.
  process.env.OFFLINE_MONGO_NOTABLESCAN ??= "1";
  // The fault tests inject errors, cut and blocked connections with mongod's failCommand fail point, which the
  // stand-in, as mongod, offers only with test commands enabled.
  process.env.OFFLINE_MONGO_TEST_COMMANDS ??= "1";
  // In band (one worker) jest still names it worker 1. A MONGODB_URI given by hand is one server, shared by every worker.
  const workers = Math.max(1, globalConfig.maxWorkers);
  const children = Array.from({ length: workers }, () =>
    spawn(process.execPath, ["--import", "tsx", join(__dirname, "database-process.ts")], { stdio: ["pipe", "pipe", "inherit"] }),
  );
  globalThis.testDatabaseProcesses = children;
  const databases = await Promise.all(children.map(firstLine));
  databases.forEach((database, index) => {
    process.env[`TEST_MONGODB_URI_${index + 1}`] = database.uri;
    process.env[`TEST_REPLICA_SET_URI_${index + 1}`] = database.replicaSetUri;
  });
  // Worker 1's, for whatever reads them outside a test file.
  process.env.TEST_MONGODB_URI = databases[0]!.uri;
  process.env.TEST_REPLICA_SET_URI = databases[0]!.replicaSetUri;
  process.env.TEST_DATABASE_KIND = databases[0]!.kind;
  const { description, replicaSetDescription } = databases[0]!;
  const each = workers === 1 ? "" : `Each of jest's ${workers} workers has databases of its own, started the same way.\n`;
  console.log(
    `\nTests run against ${description}\nTests of transactions also run on ${replicaSetDescription.replace(/\.?$/, ".")}\n${each}`,
  );
}

/** The database process's description of what it started, or its failure to start one. */
async function firstLine(
  child: ChildProcess,
): Promise<{ kind: DatabaseKind; uri: string; description: string; replicaSetUri: string; replicaSetDescription: string }> {
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) =>
      reject(new Error(`The test database process exited with status ${code} before it started a database (its error is above).`)),
    );
  });
  lines.close();
  return JSON.parse(line);
}
