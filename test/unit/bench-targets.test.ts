import { renderTargets, SECTION_RENDERERS } from "../../bench/report";
import { SECTION_TARGETS, versusBareTargets, versusMercuriusTargets, victimTargets, type TargetCheck } from "../../bench/targets";
import { VICTIM_PHASES, type VictimPhase, type VictimResults } from "../../bench/scenarios/victim";
import { ONE_ROUND_TRIP, OVERHEAD } from "../../bench/scenarios/shelf";
import {
  PLAIN_LISTING,
  STOREFRONT_LISTINGS,
  TWENTY_BOOK_PLAIN_LISTING,
  VERSUS_PEER_SCENARIOS,
  type VersusPeerResults,
  type VersusPeerRow,
} from "../../bench/scenarios/versus-peer";

const check = (target: string, pass: boolean, failsRun: boolean, measured = "measured"): TargetCheck => ({
  target,
  measured,
  pass,
  failsRun,
});

describe("the bench's targets in its report", () => {
  const rendered = renderTargets([
    check("Commands per purchase stay flat", true, true),
    check("Invariants hold", false, true),
    check("Listing at half of { __typename }'s throughput", false, false, "12 %"),
    check("Cached page at 80 %", true, false),
    check("Versus a bare server", false, false, "not measured"),
  ]);
  const [gating, reported] = rendered.split("### Times, reported only");

  it("marks PASS and FAIL only on the targets that gate the run", () => {
    expect(gating).toContain("| Commands per purchase stay flat | measured | PASS |");
    expect(gating).toContain("| Invariants hold | measured | FAIL |");
    expect(gating).not.toContain("throughput");
  });

  it("reports the times apart, with no FAIL, saying in words whether each goal was reached here", () => {
    expect(reported).not.toMatch(/FAIL|PASS/);
    expect(reported).toContain("| Listing at half of { __typename }'s throughput | 12 % | no, on this machine |");
    expect(reported).toContain("| Cached page at 80 % | measured | yes |");
    expect(reported).toContain("| Versus a bare server | not measured | not measured in this run |");
  });
});

describe("the targets of one section (npm run bench -- --only)", () => {
  it("leaves out the heading of a kind of target the section has none of", () => {
    const rendered = renderTargets([check("Versus a bare server", true, false)]);
    expect(rendered).not.toContain("Targets that gate the run");
    expect(rendered).toContain("| Versus a bare server | measured | yes |");
  });
});

/** A row of a comparison with a peer, ours at `oursOverPeer` of the peer's 100 requests a second. */
const row = (scenario: string, oursOverPeer: number, oursCpuMsPerRequest = 1): VersusPeerRow => ({
  scenario,
  oursRequestsPerSecond: 100 * oursOverPeer,
  peerRequestsPerSecond: 100,
  oursOverPeer,
  roundRatios: [oursOverPeer],
  oursCpuMsPerRequest,
  peerCpuMsPerRequest: 1,
  databaseCpuMsPerOurRequest: Number.NaN,
  databaseCpuMsPerPeerRequest: Number.NaN,
  oursCommandsPerRequest: 1,
  failures: 0,
});
const results = (rows: VersusPeerRow[]): VersusPeerResults => ({
  database: "the stand-in",
  node: "v24",
  rounds: 1,
  secondsPerLoad: 1,
  rows,
});
const [twenty, fifty] = STOREFRONT_LISTINGS.map((listing) => listing.name);

describe("issue 39's targets against the bare server", () => {
  const targets = (fiftyCpu: number) =>
    versusBareTargets(results([row(OVERHEAD.name, 1.2, 0.2), row(twenty!, 1.4, 10), row(fifty!, 9, fiftyCpu)]));

  it("asks 1.0 of the bare server's throughput of a small request and 1.5 of the 20-book listing's, never failing the run", () => {
    expect(targets(20).map(({ pass, failsRun }) => [pass, failsRun])).toEqual([
      [true, false],
      [false, false],
      [true, false],
    ]);
  });

  it("bounds the 50-book listing's API CPU per request at 2.5 times the 20-book one's", () => {
    expect(targets(25).at(-1)?.pass).toBe(true);
    expect(targets(26).at(-1)).toMatchObject({ pass: false, measured: "2.60× (26.00 against 10.00 ms)" });
  });
});

describe("issue 56's targets against Mercurius (npm run bench -- --only versus-mercurius)", () => {
  const measured = (overhead: number, others: number) =>
    results(VERSUS_PEER_SCENARIOS.map((scenario) => row(scenario.name, scenario === OVERHEAD ? overhead : others)));

  it("measures the four requests of the issue, its 20-book one both without buyers and as the storefront listing, and the 50-book listing", () => {
    expect(VERSUS_PEER_SCENARIOS).toEqual([OVERHEAD, ONE_ROUND_TRIP, PLAIN_LISTING, TWENTY_BOOK_PLAIN_LISTING, ...STOREFRONT_LISTINGS]);
  });

  it("asks 0.7 of Mercurius's throughput of { __typename } and 1.0 of book(id)'s, the 5-book and the 20-book listings', never failing the run", () => {
    const targets = versusMercuriusTargets(measured(0.7, 1.0));
    expect(targets.map(({ target }) => target)).toEqual([
      `\`${OVERHEAD.name}\`: the API at 0.7 or more of Mercurius's throughput`,
      `\`${ONE_ROUND_TRIP.name}\`: the API at 1.0 or more of Mercurius's throughput`,
      `\`${PLAIN_LISTING.name}\`: the API at 1.0 or more of Mercurius's throughput`,
      `\`${TWENTY_BOOK_PLAIN_LISTING.name}\`: the API at 1.0 or more of Mercurius's throughput`,
      `\`${twenty}\`: the API at 1.0 or more of Mercurius's throughput`,
    ]);
    expect(targets.every(({ pass, failsRun }) => pass && !failsRun)).toBe(true);
    expect(versusMercuriusTargets(measured(0.69, 0.99)).map(({ pass }) => pass)).toEqual([false, false, false, false, false]);
  });

  it("is checked alone as its own section, beside the bare server's", () => {
    expect(SECTION_TARGETS.versusMercurius(measured(0.37, 0.63))).toEqual(versusMercuriusTargets(measured(0.37, 0.63)));
    expect(Object.keys(SECTION_TARGETS).indexOf("versusMercurius")).toBe(Object.keys(SECTION_TARGETS).indexOf("versusBare") + 1);
  });

  it("prints a table of ours / Mercurius with each round's ratio", () => {
    const rendered = SECTION_RENDERERS.versusMercurius(measured(0.37, 0.63));
    expect(rendered).toContain("### The API against Mercurius 16 + Fastify 5");
    expect(rendered).toContain("| request | ours req/s | Mercurius req/s | ours / Mercurius | by round |");
    expect(rendered).toContain(`| \`${OVERHEAD.name}\` | 37 | 100 | 0.37× | 0.37 |`);
    expect(rendered).toContain("`bench/processes/mercurius-process.ts`");
  });
});

describe("issue 35's victim targets", () => {
  const phase = (name: VictimPhase["phase"], p99Ms: number, failures: VictimPhase["failures"] = {}): VictimPhase => ({
    phase: name,
    requests: 100,
    p50Ms: p99Ms / 2,
    p99Ms,
    slowest: [{ ms: p99Ms, atSeconds: 1 }],
    failures,
  });
  const turns = { over20Ms: 0, over10Ms: 1, over5Ms: 2, longestCpuMs: 12, delayMaxMs: 15, delayP99Ms: 6 };
  const results = (attacked: VictimPhase, unexpected = 0): VictimResults => ({
    database: "the stand-in",
    attackersPerKind: 4,
    attackSeconds: 10,
    phases: [phase(VICTIM_PHASES[0], 20), phase(VICTIM_PHASES[1], 40), attacked],
    attackers: [{ kind: "search", answers: { SEARCH_TOO_BROAD: 9 }, unexpected }],
    costs: [{ kind: "search", requests: 50, apiCpuMs: 2, databaseCpuMs: 1, commands: 0, turns }],
  });
  const byTarget = (checks: TargetCheck[]) => checks.map(({ pass, failsRun }) => ({ pass, failsRun }));

  it("gates the run on the victim's errors and the attackers' unexpected answers, and only reports its p99 against 5× alone", () => {
    expect(byTarget(victimTargets(results(phase(VICTIM_PHASES[2], 100))))).toEqual([
      { pass: true, failsRun: true },
      { pass: true, failsRun: true },
      { pass: true, failsRun: false },
    ]);
    expect(byTarget(victimTargets(results(phase(VICTIM_PHASES[2], 101, { DATABASE_UNAVAILABLE: 1 }), 2)))).toEqual([
      { pass: false, failsRun: true },
      { pass: false, failsRun: true },
      { pass: false, failsRun: false },
    ]);
  });
});
