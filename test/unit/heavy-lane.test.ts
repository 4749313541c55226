import { createHeavyLane, HEAVY_LANE_DOCUMENTS, LIGHT_DOCUMENTS } from "../../src/graphql/limits/heavy-lane";

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
