import { once } from "node:events";

/** Closing its standard input tells each database process to stop its database; it exits once it has. */
export default async function globalTeardown(): Promise<void> {
  const running = (globalThis.testDatabaseProcesses ?? []).filter((child) => child.exitCode === null);
  await Promise.all(
    running.map(async (child) => {
      const exited = once(child, "exit");
      child.stdin!.end();
      await exited;
    }),
  );
}
