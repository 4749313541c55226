import { createTurns } from "../../src/sales/turns";

// A router's 1,000 representations arrive in one synchronous loop; `createTurns` spreads their work over iterations
// of the event loop (issue 35's `_entities` in turns). Counted in iterations, by a chain of setImmediate: no time.

describe("turns handed out to work that arrives all at once", () => {
  it("lets a batch's worth through per iteration of the event loop, the first at once", async () => {
    let iteration = 0;
    let counting = true;
    const count = () => {
      iteration += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const turn = createTurns(100);
    const resolvedIn = await Promise.all(Array.from({ length: 250 }, () => turn().then(() => iteration)));
    counting = false;

    const perIteration = new Map<number, number>();
    for (const at of resolvedIn) perIteration.set(at, (perIteration.get(at) ?? 0) + 1);
    expect([...perIteration.values()]).toEqual([100, 100, 50]);
    // The first batch goes before the event loop turns at all; each next one a poll later than the one before.
    const [first, second, third] = [...perIteration.keys()];
    expect(first).toBe(0);
    expect(second! > first! && third! > second!).toBe(true);
  });
});
