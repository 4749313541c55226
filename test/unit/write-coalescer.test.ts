import { WriteCoalescer } from "../../src/sales/write-coalescer";

/** A write whose every call waits until the test ends it, recording the items each call carried. */
function controlledWrite() {
  const calls: { items: string[]; finish(): void; fail(error: Error): void }[] = [];
  const write = (items: string[]) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ items, finish: () => resolve(items.join("+")), fail: reject });
    });
  return { calls, write };
}

// Lets every promise callback already queued run, so that a write ended by the test hands over to the next.
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("WriteCoalescer", () => {
  it("writes an item with nothing in flight at once, alone", async () => {
    const { calls, write } = controlledWrite();
    const coalescer = new WriteCoalescer(100, write);

    const answer = coalescer.submit("book", "a");

    expect(calls.map((call) => call.items)).toEqual([["a"]]);
    calls[0]!.finish();
    await expect(answer).resolves.toBe("a");
  });

  it("sends the items that arrive during a write together in the next one, in arrival order", async () => {
    const { calls, write } = controlledWrite();
    const coalescer = new WriteCoalescer(100, write);
    const answers = ["a", "b", "c", "d"].map((item) => coalescer.submit("book", item));

    calls[0]!.finish();
    await settled();
    calls[1]!.finish();

    expect(calls.map((call) => call.items)).toEqual([["a"], ["b", "c", "d"]]);
    await expect(Promise.all(answers)).resolves.toEqual(["a", "b+c+d", "b+c+d", "b+c+d"]);
  });

  it("carries at most its maximum in one write and leaves the rest for the next", async () => {
    const { calls, write } = controlledWrite();
    const coalescer = new WriteCoalescer(2, write);
    const answers = ["a", "b", "c", "d", "e"].map((item) => coalescer.submit("book", item));

    for (let write = 0; write < 3; write += 1) {
      calls[write]!.finish();
      await settled();
    }

    expect(calls.map((call) => call.items)).toEqual([["a"], ["b", "c"], ["d", "e"]]);
    await Promise.all(answers);
  });

  it("rejects every item of a failed write with its error, and goes on with the items that waited", async () => {
    const { calls, write } = controlledWrite();
    const coalescer = new WriteCoalescer(100, write);
    const first = coalescer.submit("book", "a");
    const batch = ["b", "c"].map((item) => coalescer.submit("book", item));
    calls[0]!.finish();
    await settled();
    const late = coalescer.submit("book", "d");
    const answers = Promise.allSettled([first, ...batch, late]);

    calls[1]!.fail(new Error("database away"));
    await settled();
    calls[2]!.finish();

    const failed = expect.objectContaining({ status: "rejected", reason: new Error("database away") });
    expect(await answers).toEqual([{ status: "fulfilled", value: "a" }, failed, failed, { status: "fulfilled", value: "d" }]);
  });

  it("keeps keys apart: a write in flight for one never holds back another", () => {
    const { calls, write } = controlledWrite();
    const coalescer = new WriteCoalescer(100, write);

    void coalescer.submit("one book", "a");
    void coalescer.submit("another book", "b");

    expect(calls.map((call) => call.items)).toEqual([["a"], ["b"]]);
  });
});
