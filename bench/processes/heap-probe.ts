/**
 * Loaded with `--expose-gc --import` into a server process the subscriber benchmark measures (the API, the bare
 * baseline), before its own entry point: on the IPC message `"heap"` it runs full garbage collections and
 * answers with what the process then holds (`HeapFigures`). RSS also counts what the allocator keeps from
 * work already done (the burst of connection set-ups, freed but not returned to the system); this is what
 * the live objects still take, in V8's heap and in memory outside it that they own (buffers, ws's and the driver's).
 */
export interface HeapFigures {
  /** V8's heap in use after a full collection. */
  heapUsed: number;
  /** Memory outside V8's heap held by JavaScript objects (Node's Buffers and every ArrayBuffer are part of it). */
  external: number;
  /** The ArrayBuffers' and Buffers' share of `external`, given apart. */
  arrayBuffers: number;
  rss: number;
}

const collect = (globalThis as { gc?: () => void }).gc;
if (process.send) {
  process.on("message", (message) => {
    if (message !== "heap") return;
    if (!collect) throw new Error("heap-probe: start the process with --expose-gc");
    // Twice: objects with finalizers (sockets' handles among them) are freed only by the collection after the one that found them.
    collect();
    collect();
    const { heapUsed, external, arrayBuffers, rss } = process.memoryUsage();
    const figures: HeapFigures = { heapUsed, external, arrayBuffers, rss };
    process.send!(figures);
  });
  // The channel must not keep a process alive that would otherwise end (a SIGTERM's stop).
  process.channel?.unref();
}
