import { Arrivals } from "../../bench/processes/arrivals";
import { valueKey } from "../../bench/scenarios/subscriber-mix";

/** The load process's record of what it received (bench/processes/arrivals.ts). */
describe("a load process's arrivals", () => {
  const books = ["hot", "quiet-0", "quiet-1"];

  it("count each value once and give each one its latency from its write, to a tenth of a millisecond", () => {
    const arrivals = new Arrivals(books);
    arrivals.add("hot", 2, 1_000.25);
    arrivals.add("quiet-1", 1, 1_003);
    arrivals.add("hot", 3, 1_010);
    const writtenAt = { [valueKey("hot", 2)]: 1_000, [valueKey("quiet-1", 1)]: 1_001, [valueKey("hot", 3)]: 1_001 };
    expect(arrivals.size).toBe(3);
    expect(arrivals.latencyHistogram(writtenAt)).toEqual({ "3": 1, "20": 1, "90": 1 });
  });

  it("leave out of the latencies a value whose write is unknown and a book the process was not given", () => {
    const arrivals = new Arrivals(books);
    arrivals.add("hot", 9, 2_000);
    arrivals.add("elsewhere", 1, 2_000);
    arrivals.add("quiet-0", 4, 2_000);
    expect(arrivals.size).toBe(3);
    expect(arrivals.latencyHistogram({ [valueKey("quiet-0", 4)]: 1_999.5, [valueKey("elsewhere", 1)]: 1_000 })).toEqual({ "5": 1 });
  });

  it("hold plain numbers only, however many values arrive: no string or boxed time kept for each", () => {
    const arrivals = new Arrivals(books);
    for (let count = 1; count <= 10_000; count += 1) arrivals.add(books[count % books.length]!, count, performance.timeOrigin + count / 3);
    const held = arrivals.held();
    expect(held).toHaveLength(30_000);
    expect(held.every((entry) => typeof entry === "number")).toBe(true);
  });
});
