import { selectDatabase } from "../../src/db/select-database";

/**
 * The run's database, chosen as global-setup.ts describes, in a process of its own. Prints one JSON line
 * (kind, uri, description) once it accepts connections, and stops it when standard input closes: at the
 * run's teardown, or when jest dies, so no database outlives the run.
 */
async function main(): Promise<void> {
  const database = await selectDatabase(process.env.MONGODB_URI);
  const { kind, uri, description } = database;
  process.stdout.write(`${JSON.stringify({ kind, uri, description })}\n`);
  process.stdin.on("close", () => void database.stop().then(() => process.exit(0)));
  process.stdin.resume();
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
