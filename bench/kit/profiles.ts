import { readFileSync } from "node:fs";

/** V8's sampling CPU profile as the inspector's `Profiler.stop` returns it (DevTools' `.cpuprofile`). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  /** Microseconds between each sample and the one before it. */
  timeDeltas: number[];
}

export interface ProfileLine {
  /** `function (file:line)`, the file from the repository's root or the package it is in. */
  name: string;
  /** Where the line's code lives: a package, a folder of the project or of the stand-in, Node, V8. */
  part: string;
  /** Share of the profile's busy samples (all but idle) spent in the function itself. */
  share: number;
}

export interface ProfileSummary {
  /** Milliseconds the profile covers and how many of them the process was busy (sampled outside idle). */
  sampledMs: number;
  busyMs: number;
  /** Self time by function, largest first. */
  lines: ProfileLine[];
  /** Self time by part, largest first. */
  parts: { part: string; share: number }[];
}

const IDLE = "(idle)";

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
}

/** Self time of every function and part, as shares of the busy samples: proportions hold on a busy machine, absolute times do not. */
export function summarizeProfile(profile: CpuProfile, root: string): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const selfMs = new Map<string, { part: string; ms: number }>();
  let [sampledMs, busyMs] = [0, 0];
  profile.samples.forEach((id, index) => {
    // The first delta runs from the profiler's start, not from a sample: it may span a second of nothing.
    if (index === 0) return;
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    sampledMs += ms;
    const frame = frames.get(id);
    if (!frame || frame.functionName === IDLE) return;
    busyMs += ms;
    const name = lineName(frame, root);
    const entry = selfMs.get(name) ?? { part: partOf(frame, root), ms: 0 };
    entry.ms += ms;
    selfMs.set(name, entry);
  });
  const lines = [...selfMs].map(([name, { part, ms }]) => ({ name, part, share: ms / busyMs })).sort((a, b) => b.share - a.share);
  const byPart = new Map<string, number>();
  for (const line of lines) byPart.set(line.part, (byPart.get(line.part) ?? 0) + line.share);
  const parts = [...byPart].map(([part, share]) => ({ part, share })).sort((a, b) => b.share - a.share);
  return { sampledMs, busyMs, lines, parts };
}

function lineName({ functionName, url, lineNumber }: CpuProfile["nodes"][number]["callFrame"], root: string): string {
  const file = shortFile(url, root);
  // tsx runs TypeScript transpiled, without mapping lines back: a .ts file's line number would mislead.
  const where = file.endsWith(".ts") ? file : `${file}:${lineNumber + 1}`;
  return file ? `${functionName || "(anonymous)"} (${where})` : functionName || "(anonymous)";
}

function shortFile(url: string, root: string): string {
  const path = url.replace(/^file:\/\//, "");
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  if (inPackage) return `${inPackage[1]}/${inPackage[2]}`;
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

/**
 * The part a function belongs to: an npm package; a folder of the project's `src/` or of the stand-in's;
 * Node's own JavaScript; or V8's pseudo-frames (the garbage collector, native code it does not attribute).
 */
function partOf({ functionName, url }: CpuProfile["nodes"][number]["callFrame"], root: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "native (V8 builtins, bindings)";
  if (url.startsWith("node:")) return "Node (node:*)";
  const file = shortFile(url, root);
  if (/node_modules\//.test(url))
    return `package ${file
      .split("/")
      .slice(0, file.startsWith("@") ? 2 : 1)
      .join("/")}`;
  const project = /^(packages\/offline-mongo\/src|src|bench)\/(.*)$/.exec(file);
  if (!project) return file;
  const folder = project[2]!.includes("/") ? project[2]!.split("/")[0] : project[2]!.replace(/\.ts$/, "");
  return `${project[1]}/${folder}`;
}
