import { once } from "node:events";

/** Closing its standard input tells the database process to stop the database; it exits once it has. */
export default async function globalTeardown(): Promise<void> {
  const child = globalThis.testDatabaseProcess;
  if (!child || child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.stdin!.end();
  await exited;
}
