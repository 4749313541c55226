import { ClaimReleases } from "../../src/sales/claim-releases";

const FAST = { firstRetryMs: 1, maxRetryMs: 4, maxOwed: 3 };
const IN_AN_HOUR = () => new Date(Date.now() + 3_600_000);

/** A release that fails `failures` times (the database away), then lands. */
function releaseFailing(failures: number) {
  const attempts = { count: 0, landed: false };
  const release = async () => {
    attempts.count += 1;
    if (attempts.count <= failures) throw new Error("database unavailable");
    attempts.landed = true;
  };
  return { attempts, release };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe("ClaimReleases", () => {
  let releases: ClaimReleases;
  beforeEach(() => void (releases = new ClaimReleases(FAST)));
  afterEach(async () => {
    await releases.stop();
    jest.useRealTimers();
  });

  it("retries an owed release until it lands, then owes it no more", async () => {
    const { attempts, release } = releaseFailing(3);
    expect(releases.owe("owner-1", IN_AN_HOUR(), release)).toBe(true);

    await until(() => releases.size === 0);
    expect(attempts).toEqual({ count: 4, landed: true });
  });

  it("releases at once when a retry of the key asks, and not again afterwards", async () => {
    const { attempts, release } = releaseFailing(0);
    releases.owe("owner-2", IN_AN_HOUR(), release);

    expect(await releases.settleNow("owner-2")).toBe(true);
    expect(releases.size).toBe(0);
    expect(await releases.settleNow("owner-2")).toBe(false);
    expect(attempts.count).toBe(1);
  });

  it("keeps the release owed when releasing at once fails too", async () => {
    const slow = new ClaimReleases({ ...FAST, firstRetryMs: 3_600_000, maxRetryMs: 3_600_000 });
    const { release } = releaseFailing(1);
    slow.owe("owner-3", new Date(Date.now() + 7_200_000), release);

    expect(await slow.settleNow("owner-3")).toBe(false);
    expect(slow.size).toBe(1);
    await slow.stop();
  });

  it("gives a release up once the claim's lease has passed, since a retry then takes the claim over", async () => {
    const { attempts, release } = releaseFailing(Infinity);
    releases.owe("owner-4", new Date(Date.now() - 1), release);

    await until(() => releases.size === 0);
    expect(attempts.count).toBe(0);
  });

  it("retries an owed outcome past any lease, and says where its purchase went until it lands (issue 35)", async () => {
    jest.useFakeTimers();
    const { attempts, release: store } = releaseFailing(20);
    expect(releases.oweOutcome("owner-7", "EXTRA_SALES", store)).toBe(true);
    expect(releases.owedOutcome("owner-7")).toBe("EXTRA_SALES");

    // 20 failures at the longest wait: far past what a release would be retried for.
    await jest.advanceTimersByTimeAsync(FAST.maxRetryMs * 25);
    expect(attempts).toEqual({ count: 21, landed: true });
    expect(releases.owedOutcome("owner-7")).toBeUndefined();
    expect(releases.size).toBe(0);
  });

  it("owes at most maxOwed releases, leaving the rest to their leases", () => {
    const never = releaseFailing(Infinity).release;
    const taken = ["a", "b", "c", "d"].map((owner) => releases.owe(owner, IN_AN_HOUR(), never));
    expect(taken).toEqual([true, true, true, false]);
    expect(releases.size).toBe(3);
  });

  it("stops retrying on stop(), owes nothing afterwards and takes no more", async () => {
    jest.useFakeTimers();
    const { attempts, release } = releaseFailing(Infinity);
    releases.owe("owner-5", IN_AN_HOUR(), release);
    // The first retry after 1 ms, the second 2 ms later.
    await jest.advanceTimersByTimeAsync(FAST.firstRetryMs * 3);
    expect(attempts.count).toBe(2);

    await releases.stop();
    const attemptsAtStop = attempts.count;
    expect(releases.size).toBe(0);
    expect(releases.owe("owner-6", IN_AN_HOUR(), release)).toBe(false);
    // Long enough for five more retries at the longest wait, had any loop gone on.
    await jest.advanceTimersByTimeAsync(FAST.maxRetryMs * 5);
    expect(attempts.count).toBe(attemptsAtStop);
  });
});
