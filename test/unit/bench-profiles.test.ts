import { summarizeProfile, type CpuProfile } from "../../bench/kit/profiles";

const ROOT = "/repo";

/** A profile of four functions; each sample is `[node id, microseconds since the sample before]`. */
function profileOf(samples: [number, number][]): CpuProfile {
  const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });
  return {
    nodes: [
      { id: 1, callFrame: frame("(idle)", "") },
      { id: 2, callFrame: frame("executeField", `file://${ROOT}/node_modules/graphql/execution/execute.js`, 701) },
      { id: 3, callFrame: frame("loadExtraSalesWindows", `file://${ROOT}/src/sales/loaders.ts`, 1) },
      { id: 4, callFrame: frame("computeExpression", `file://${ROOT}/node_modules/mingo/cjs/core/_internal.js`, 183) },
      { id: 5, callFrame: frame("planFind", `file://${ROOT}/packages/offline-mongo/src/commands/read.ts`, 1) },
      { id: 6, callFrame: frame("(garbage collector)", "") },
    ],
    samples: samples.map(([id]) => id),
    timeDeltas: samples.map(([, us]) => us),
  };
}

describe("a CPU profile's summary (npm run bench -- --profile)", () => {
  const summary = summarizeProfile(
    profileOf([
      // The first delta runs from the profiler's start: a second that is no function's.
      [2, 1_000_000],
      [2, 3_000],
      [3, 1_000],
      [1, 4_000],
      [4, 2_000],
      [5, 1_000],
      [6, 1_000],
    ]),
    ROOT,
  );

  it("counts every sample but the first, and leaves idle out of the busy time", () => {
    expect(summary.sampledMs).toBeCloseTo(12);
    expect(summary.busyMs).toBeCloseTo(8);
  });

  it("gives each function's self time as a share of the busy time, largest first, with its file from the root or its package", () => {
    expect(summary.lines.map((line) => [line.name, line.share])).toEqual([
      ["executeField (graphql/execution/execute.js:702)", 3 / 8],
      ["computeExpression (mingo/cjs/core/_internal.js:184)", 2 / 8],
      // tsx does not map a TypeScript file's lines back: the file is named without one.
      ["loadExtraSalesWindows (src/sales/loaders.ts)", 1 / 8],
      ["planFind (packages/offline-mongo/src/commands/read.ts)", 1 / 8],
      ["(garbage collector)", 1 / 8],
    ]);
  });

  it("sums the shares by part: a package, a folder of src/ or of the stand-in, V8's pseudo-frames", () => {
    expect(Object.fromEntries(summary.parts.map((part) => [part.part, part.share]))).toEqual({
      "package graphql": 3 / 8,
      "package mingo": 2 / 8,
      "src/sales": 1 / 8,
      "packages/offline-mongo/src/commands": 1 / 8,
      "(garbage collector)": 1 / 8,
    });
  });
});
