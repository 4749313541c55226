import { SharedFeed, type LiveEvent } from "../../src/graphql/live/live-sales";

/** A book's figures as the feed keeps them: only what these tests compare. */
interface Figures {
  purchase_count: number;
}

/** A feed for a shared execution whose subscribers number `audience`, with the conflated values it counted. */
function sharedFeed(audience: number, reread: () => Promise<void> = async () => {}) {
  const conflated: number[] = [];
  const feed = new SharedFeed<Figures>(
    () => {},
    (count) => conflated.push(count),
    () => reread(),
  );
  feed.audience = audience;
  return { feed, conflated };
}

/** Whether the promise has settled once what is already queued on the microtask queue has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise<void>((resolve) => setImmediate(resolve));
  return done;
}

async function taken<T>(feed: SharedFeed<T>): Promise<LiveEvent<T>> {
  const result = await feed.next();
  if (result.done) throw new Error("the feed ended: a value was expected");
  return result.value;
}

describe("a shared execution's feed", () => {
  it("keeps one document and one queued key for a book changed many times while the pump is busy, and hands the pump the newest", async () => {
    const { feed, conflated } = sharedFeed(3);
    feed.put("1", { purchase_count: 0 }, undefined);
    expect(await taken(feed)).toEqual({ key: "1", value: { purchase_count: 0 }, writtenAt: undefined });

    // The pump resolves the first value meanwhile: fifty changes of the same book come.
    const writes = Array.from({ length: 50 }, (_, index) => new Date(Date.UTC(2026, 0, 1, 0, 0, index)));
    writes.forEach((writtenAt, index) => feed.put("1", { purchase_count: index + 1 }, writtenAt));
    feed.put("2", { purchase_count: 7 }, writes[0]);

    expect(feed.document("1")).toEqual({ purchase_count: 50 });
    // The first change queued the book; each of the 49 after it replaced a document no subscriber of 3 had been handed.
    expect(conflated).toEqual(Array.from({ length: 49 }, () => 3));
    expect(await taken(feed)).toEqual({ key: "1", value: { purchase_count: 50 }, writtenAt: writes[49] });
    expect(await taken(feed)).toEqual({ key: "2", value: { purchase_count: 7 }, writtenAt: writes[0] });
    // Both keys taken, nothing else queued: the pump's next read waits.
    expect(await settled(feed.next())).toBe(false);
  });

  it("keeps a book's document after the pump took it, as the one the next change merges with", async () => {
    const { feed, conflated } = sharedFeed(1);
    feed.put("1", { purchase_count: 4 }, undefined);
    await taken(feed);
    expect(feed.document("1")).toEqual({ purchase_count: 4 });
    expect(feed.document("2")).toBeUndefined();

    // The pump waits for a value: the change goes straight to it, queued nowhere, and conflates nothing.
    const waiting = feed.next();
    feed.put("1", { purchase_count: 5 }, undefined);
    expect((await waiting).value).toEqual({ key: "1", value: { purchase_count: 5 }, writtenAt: undefined });
    expect(feed.document("1")).toEqual({ purchase_count: 5 });
    expect(await settled(feed.next())).toBe(false);
    expect(conflated).toEqual([]);
  });

  it("hands a key on in the order it first changed, a key changed again keeping its place", async () => {
    const { feed } = sharedFeed(1);
    feed.put("1", { purchase_count: 1 }, undefined);
    feed.put("2", { purchase_count: 1 }, undefined);
    feed.put("1", { purchase_count: 2 }, undefined);
    feed.put("3", { purchase_count: 1 }, undefined);
    const order = [await taken(feed), await taken(feed), await taken(feed)].map(({ key, value }) => [key, value.purchase_count]);
    expect(order).toEqual([
      ["1", 2],
      ["2", 1],
      ["3", 1],
    ]);
  });

  it("lets a subscriber join only once the pump has been handed the newest document of every key and asked for the next", async () => {
    const { feed } = sharedFeed(1);
    feed.put("1", { purchase_count: 1 }, undefined);
    await taken(feed);
    feed.put("1", { purchase_count: 2 }, undefined);

    const joined = feed.caughtUp();
    expect(await settled(joined)).toBe(false);
    // The pump asks for the next value: the first is handed on to every subscriber, the second is not yet.
    expect((await taken(feed)).value).toEqual({ purchase_count: 2 });
    expect(await settled(joined)).toBe(false);
    const next = feed.next();
    expect(await settled(joined)).toBe(true);
    expect(await settled(next)).toBe(false);
  });

  it("lets a subscriber join only once a document put while the pump was being handed an older one of the same book is handed on", async () => {
    const { feed } = sharedFeed(1);
    feed.put("1", { purchase_count: 1 }, undefined);
    await taken(feed);

    // The pump waits: a change goes straight to it, and a newer one of the same book comes before the pump resumes.
    const handed = feed.next();
    feed.put("1", { purchase_count: 2 }, undefined);
    feed.put("1", { purchase_count: 3 }, undefined);
    expect((await handed).value).toEqual({ key: "1", value: { purchase_count: 2 }, writtenAt: undefined });

    const joined = feed.caughtUp();
    expect((await taken(feed)).value).toEqual({ purchase_count: 3 });
    expect(await settled(joined)).toBe(false);
    void feed.next();
    expect(await settled(joined)).toBe(true);
  });

  it("reads again for each later subscriber, and lets it join once what the read found newer is handed on", async () => {
    let rereads = 0;
    const { feed } = sharedFeed(1, async () => {
      rereads += 1;
      feed.put("1", { purchase_count: 9 }, undefined);
    });
    feed.put("1", { purchase_count: 1 }, undefined);
    await taken(feed);
    const waiting = feed.next();
    // The first subscriber starts from the read that made the feed, once its value is handed on.
    await feed.caughtUp();
    expect(rereads).toBe(0);

    const joined = feed.caughtUp();
    expect((await waiting).value).toEqual({ key: "1", value: { purchase_count: 9 }, writtenAt: undefined });
    expect(rereads).toBe(1);
    expect(await settled(joined)).toBe(false);
    void feed.next();
    expect(await settled(joined)).toBe(true);
  });

  it("hands the pump nothing it still held once its last subscriber left, or once it failed: it ends, or fails", async () => {
    const left = sharedFeed(1).feed;
    left.put("1", { purchase_count: 1 }, undefined);
    await taken(left);
    left.put("1", { purchase_count: 2 }, undefined);
    await left.return();
    expect(await left.next()).toEqual({ value: undefined, done: true });

    const failed = sharedFeed(1).feed;
    failed.put("1", { purchase_count: 1 }, undefined);
    failed.fail(new Error("the change stream cannot resume"));
    await expect(failed.next()).rejects.toThrow("the change stream cannot resume");
  });
});
