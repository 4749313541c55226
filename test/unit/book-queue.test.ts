import { BookQueue } from "../../src/sales/shared-writes";

interface Purchase {
  bookId: string;
  customerId: string;
}

/** A write whose every call waits until the test ends it, recording the customers each call carried. */
function controlledWrite() {
  const calls: { items: string[]; finish(): void; fail(error: Error): void }[] = [];
  const write = (purchases: Purchase[]) =>
    new Promise<string>((resolve, reject) => {
      const items = purchases.map((purchase) => purchase.customerId);
      calls.push({ items, finish: () => resolve(items.join("+")), fail: reject });
    });
  return { calls, write };
}

// Lets every promise callback already queued run, so that a write ended by the test hands over to the next.
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("BookQueue", () => {
  it("writes an item with nothing in flight at once, alone", async () => {
    const { calls, write } = controlledWrite();
    const queue = new BookQueue(100, write);

    const answer = queue.submit({ bookId: "book", customerId: "a" });

    expect(calls.map((call) => call.items)).toEqual([["a"]]);
    calls[0]!.finish();
    await expect(answer).resolves.toBe("a");
  });

  it("sends the items that arrive during a write together in the next one, in arrival order", async () => {
    const { calls, write } = controlledWrite();
    const queue = new BookQueue(100, write);
    const answers = ["a", "b", "c", "d"].map((item) => queue.submit({ bookId: "book", customerId: item }));

    calls[0]!.finish();
    await settled();
    calls[1]!.finish();

    expect(calls.map((call) => call.items)).toEqual([["a"], ["b", "c", "d"]]);
    await expect(Promise.all(answers)).resolves.toEqual(["a", "b+c+d", "b+c+d", "b+c+d"]);
  });

  it("carries at most its maximum in one write and leaves the rest for the next", async () => {
    const { calls, write } = controlledWrite();
    const queue = new BookQueue(2, write);
    const answers = ["a", "b", "c", "d", "e"].map((item) => queue.submit({ bookId: "book", customerId: item }));

    for (let write = 0; write < 3; write += 1) {
      calls[write]!.finish();
      await settled();
    }

    expect(calls.map((call) => call.items)).toEqual([["a"], ["b", "c"], ["d", "e"]]);
    await Promise.all(answers);
  });

  it("rejects every item of a failed write with its error, and goes on with the items that waited", async () => {
    const { calls, write } = controlledWrite();
    const queue = new BookQueue(100, write);
    const first = queue.submit({ bookId: "book", customerId: "a" });
    const batch = ["b", "c"].map((item) => queue.submit({ bookId: "book", customerId: item }));
    calls[0]!.finish();
    await settled();
    const late = queue.submit({ bookId: "book", customerId: "d" });
    const answers = Promise.allSettled([first, ...batch, late]);

    calls[1]!.fail(new Error("database away"));
    await settled();
    calls[2]!.finish();

    const failed = expect.objectContaining({ status: "rejected", reason: new Error("database away") });
    expect(await answers).toEqual([{ status: "fulfilled", value: "a" }, failed, failed, { status: "fulfilled", value: "d" }]);
  });

  it("keeps books apart: a write in flight for one never holds back another", () => {
    const { calls, write } = controlledWrite();
    const queue = new BookQueue(100, write);

    void queue.submit({ bookId: "one book", customerId: "a" });
    void queue.submit({ bookId: "another book", customerId: "b" });

    expect(calls.map((call) => call.items)).toEqual([["a"], ["b"]]);
  });
});
