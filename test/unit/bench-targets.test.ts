import { renderTargets } from "../../bench/report";
import type { TargetCheck } from "../../bench/targets";

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
