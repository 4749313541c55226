import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { DatabaseKind } from "../../src/db/select-database";

declare global {
  // Handed from setup to teardown, which jest runs in the same process.
  var testDatabaseProcess: ChildProcess | undefined;
}

/**
 * Chooses the one database the whole run uses, says which, and hands its URI to every test worker.
 * The database runs in a process of its own (test/support/database-process.ts): jest runs the tests in
 * band on a 2-core machine, so an embedded stand-in in jest's own process would share one core with the
 * tests while the other idled. Apart from where it runs, it is the database `selectDatabase` chooses.
 */
export default async function globalSetup(): Promise<void> {
  // The stand-in refuses, as mongod's notablescan does, any query only a collection scan could answer:
  // a product query that would scan a whole collection fails its test. OFFLINE_MONGO_NOTABLESCAN=0 turns it off.
  process.env.OFFLINE_MONGO_NOTABLESCAN ??= "1";
  // The fault tests inject errors, cut and blocked connections with mongod's failCommand fail point, which the
  // stand-in, as mongod, offers only with test commands enabled.
  process.env.OFFLINE_MONGO_TEST_COMMANDS ??= "1";
  const child = spawn(process.execPath, ["--import", "tsx", join(__dirname, "database-process.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  globalThis.testDatabaseProcess = child;
  const database = await firstLine(child);
  process.env.TEST_MONGODB_URI = database.uri;
  process.env.TEST_REPLICA_SET_URI = database.replicaSetUri;
  process.env.TEST_DATABASE_KIND = database.kind;
  console.log(
    `\nTests run against ${database.description}\nTests of transactions also run on ${database.replicaSetDescription.replace(/\.?$/, ".")}\n`,
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
