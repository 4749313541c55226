import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

/**
 * Loaded with `--import` into a process the bench profiles (the API, the stand-in), before its own
 * entry point: SIGUSR2 starts V8's sampling CPU profiler, the next SIGUSR2 stops it and writes the
 * profile (DevTools' `.cpuprofile`) to BENCH_CPU_PROFILE. Unlike `node --cpu-prof`, which profiles a
 * process's whole life, this leaves out start-up and warm-up: the profile holds the measured load only.
 */
const file = process.env["BENCH_CPU_PROFILE"];
if (file) {
  const session = new Session();
  session.connect();
  let running = false;
  const toggle = async (): Promise<void> => {
    if (!running) {
      running = true;
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
      return;
    }
    running = false;
    const { profile } = await session.post("Profiler.stop");
    // Written aside, then renamed: the bench waits for the file and must never read half of it.
    writeFileSync(`${file}.partial`, JSON.stringify(profile));
    renameSync(`${file}.partial`, file);
  };
  process.on("SIGUSR2", () => {
    toggle().catch((error: unknown) => process.stderr.write(`profiler: ${String(error)}\n`));
  });
}
