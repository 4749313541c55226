import { createHeavyLane, HEAVY_LANE_DOCUMENTS, LIGHT_DOCUMENTS, type HeavyLane } from "../../src/graphql/limits/heavy-lane";

// The server's heavy lane (issue 35, item 2): heavy requests take turns, light ones never wait.

describe("the heavy lane", () => {
  it("lets a light request in at once while heavy ones fill it", async () => {
    const lane = createHeavyLane(60_000);
    const heavy = await lane.enter(HEAVY_LANE_DOCUMENTS);
    expect(heavy).toBeDefined();
    expect(await lane.enter(LIGHT_DOCUMENTS)).toBeDefined();
    heavy!();
  });

  it("lets a heavy request in once those before it have left, in arrival order", async () => {
    const lane = createHeavyLane(60_000);
    const first = await lane.enter(HEAVY_LANE_DOCUMENTS);
    const entered: string[] = [];
    const second = lane.enter(HEAVY_LANE_DOCUMENTS / 2 + 1).then((release) => (entered.push("second"), release));
    const third = lane.enter(HEAVY_LANE_DOCUMENTS / 2 + 1).then((release) => (entered.push("third"), release));
    await new Promise((resolve) => setImmediate(resolve));
    expect(entered).toEqual([]);
    first!();
    (await second)!();
    (await third)!();
    expect(entered).toEqual(["second", "third"]);
  });

  it("takes turns by client: a client's burst waits behind another client's first request", async () => {
    const lane = createHeavyLane(60_000);
    const first = await lane.enter(HEAVY_LANE_DOCUMENTS, "burst");
    const entered: string[] = [];
    const waiting = [
      ["burst", "burst 2"],
      ["burst", "burst 3"],
      ["other", "other 1"],
      ["burst", "burst 4"],
    ].map(async ([client, label]) => {
      const release = await lane.enter(HEAVY_LANE_DOCUMENTS, client);
      entered.push(label!);
      release!();
    });
    first!();
    await Promise.all(waiting);
    // The burst already has a request in the lane: the other client's first goes next. In arrival order (the lane
    // before issue 35's second victim round) it waited for two of the burst's.
    expect(entered).toEqual(["other 1", "burst 2", "burst 3", "burst 4"]);
  });

  describe("with a pace of its size a second", () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());
    const pacedLane = () => createHeavyLane(60_000, HEAVY_LANE_DOCUMENTS, HEAVY_LANE_DOCUMENTS);

    /** Whether `client`'s request at the limit enters at once, or only once the pace has refilled (over 0.5 s, by 1.1 s). */
    async function waitToEnter(lane: HeavyLane, client: string): Promise<"at once" | "after the pace"> {
      let entered = false;
      const waiting = lane.enter(HEAVY_LANE_DOCUMENTS, client).then((release) => ((entered = true), release));
      await jest.advanceTimersByTimeAsync(0);
      const atOnce = entered;
      if (!atOnce) {
        await jest.advanceTimersByTimeAsync(500);
        expect(entered).toBe(false);
        await jest.advanceTimersByTimeAsync(600);
        expect(entered).toBe(true);
      }
      (await waiting)!();
      return atOnce ? "at once" : "after the pace";
    }

    it("lets heavy documents in at its pace, however many clients send them: a second request at the limit waits for the pace to refill", async () => {
      const lane = pacedLane();
      expect(await waitToEnter(lane, "one")).toBe("at once");
      expect(await waitToEnter(lane, "two")).toBe("after the pace");
    });

    it("does not hold one client's requests back to back to the pace: its own budget bounds them", async () => {
      const lane = pacedLane();
      expect(await waitToEnter(lane, "router")).toBe("at once");
      expect(await waitToEnter(lane, "router")).toBe("at once");
      // Another client then waits for the pace the router spent.
      expect(await waitToEnter(lane, "other")).toBe("after the pace");
    });
  });

  it("gives up on a heavy request that waited its whole wait, which then holds nothing", async () => {
    const lane = createHeavyLane(50);
    const first = await lane.enter(HEAVY_LANE_DOCUMENTS);
    expect(await lane.enter(LIGHT_DOCUMENTS + 1)).toBeUndefined();
    first!();
    const next = await lane.enter(HEAVY_LANE_DOCUMENTS);
    expect(next).toBeDefined();
    next!();
  });
});
