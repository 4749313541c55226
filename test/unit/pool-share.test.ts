import { Semaphore } from "async-mutex";
import { createPoolShare, MIN_POOL_MS, POOL_MS_PER_COST, POOL_MS_PER_DOCUMENT, poolTimeFor } from "../../src/sales/pool-share";
import { PoolTimeSpentError } from "../../src/sales/errors";

// Issue 35, item 2: a request's pool share bounds the connection time it may hold by its weight, counted on
// a clock the test moves, so that nothing here waits.

/** A share on a clock the test moves; `read(connections, ms)` holds that many connections for that long. */
function timedShare(connections: number) {
  let clock = 0;
  const share = createPoolShare(connections, () => clock);
  let sent = 0;
  const read = (weight: number, ms: number) =>
    share.use(weight, async () => {
      sent += 1;
      clock += ms;
      return sent;
    });
  return { share, read, sent: () => sent };
}

describe("a request's connection time", () => {
  it("is 1 ms per unit of cost and 10 ms per document it may examine, 2 s at least", () => {
    expect(poolTimeFor({ cost: 1, documents: 0 })).toBe(MIN_POOL_MS);
    // The heaviest request allowed: its tenth of the pool (10 connections) for 10 s, and 10 s more for its documents.
    expect(poolTimeFor({ cost: 100_000, documents: 1_000 })).toBe(100_000 * POOL_MS_PER_COST + 1_000 * POOL_MS_PER_DOCUMENT);
    expect(poolTimeFor({ cost: 100_000, documents: 1_000 })).toBe(110_000);
  });

  it.each([5, Infinity])(
    "refuses reads with PoolTimeSpentError, sending nothing, once a share of %s connections held it",
    async (connections) => {
      const { share, read, sent } = timedShare(connections);
      share.allow({ cost: 1_000, documents: 100 });
      // Two connections for 600 ms, twice: 2,400 connection-ms, past the 2,000 a request of cost 1,000 and 100 documents may hold.
      await read(2, 600);
      expect(share.held).toBe(1_200);
      await read(2, 600);
      await expect(read(1, 1)).rejects.toBeInstanceOf(PoolTimeSpentError);
      expect(sent()).toBe(2);
      expect(share.held).toBe(2_400);
    },
  );

  it("counts a read the database failed as held too", async () => {
    let clock = 0;
    const share = createPoolShare(5, () => clock);
    share.allow({ cost: 0, documents: 0 });
    const failing = share.use(1, async () => {
      clock += MIN_POOL_MS;
      throw new Error("connection reset");
    });
    await expect(failing).rejects.toThrow("connection reset");
    await expect(share.use(1, async () => "sent")).rejects.toBeInstanceOf(PoolTimeSpentError);
  });

  it("is unbounded until the request is weighed, as a subscription's share is", async () => {
    const { read, sent } = timedShare(5);
    for (let i = 0; i < 10; i += 1) await read(5, 60_000);
    expect(sent()).toBe(10);
  });
});

describe("a request's share of the pool, at once", () => {
  it("runs at most its connections at once, lets a waiting read in when one ends, and frees the connection of a read that failed", async () => {
    const share = createPoolShare(2);
    let running = 0;
    let most = 0;
    const read = (fail = false) =>
      share.use(1, async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        if (fail) throw new Error("the read failed");
        return "read";
      });
    const answers = await Promise.allSettled([read(true), read(), read(true), read(), read()]);
    expect(most).toBe(2);
    expect(answers.map((answer) => answer.status)).toEqual(["rejected", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
  });

  // Issue 39: async-mutex ships runExclusive down-levelled to tslib's generator helpers, and under load the replies
  // awaited through their state outlived the young generation (docs/benchmarks/analysis.md).
  it("waits with the semaphore's acquire and release, not its runExclusive", async () => {
    const runExclusive = jest.spyOn(Semaphore.prototype, "runExclusive");
    try {
      await createPoolShare(2).use(1, async () => "read");
      expect(runExclusive).not.toHaveBeenCalled();
    } finally {
      runExclusive.mockRestore();
    }
  });
});
