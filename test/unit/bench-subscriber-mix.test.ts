import {
  expectedValues,
  finalCounts,
  purchaseSchedule,
  SHELF_BOOKS,
  SUBSCRIBER_MIX,
  SUBSCRIBER_PERIOD,
  subscribedBooks,
  type MixBooks,
} from "../../bench/scenarios/subscriber-mix";
import { subscriberTargets } from "../../bench/targets";
import { SUBSCRIBER_PLANS, type SubscriberRow } from "../../bench/scenarios/subscribers";

const BOOKS: MixBooks = { hot: "hot", quiet: Array.from({ length: 100 }, (_, index) => `quiet-${index}`) };

describe("the subscriber benchmark's mix (BENCHMARKS.md, section 8)", () => {
  const all = Array.from({ length: 1_000 }, (_, index) => subscribedBooks(index, BOOKS));

  it("puts 12 in 20 subscribers on the hot book's page, 5 on a quiet book's and 3 on a shelf of the hot book and 9 quiet ones", () => {
    const hotPages = all.filter((books) => books.length === 1 && books[0] === "hot");
    const quietPages = all.filter((books) => books.length === 1 && books[0] !== "hot");
    const shelves = all.filter((books) => books.length > 1);
    expect([hotPages.length, quietPages.length, shelves.length]).toEqual(
      [SUBSCRIBER_MIX.hotPage, SUBSCRIBER_MIX.quietPage, SUBSCRIBER_MIX.shelf].map((share) => (share * 1_000) / SUBSCRIBER_PERIOD),
    );
    for (const shelf of shelves) {
      expect(shelf).toHaveLength(SHELF_BOOKS);
      expect(shelf[0]).toBe("hot");
      expect(new Set(shelf).size).toBe(SHELF_BOOKS);
    }
  });

  it("spreads the quiet books' subscribers over all 100 of them", () => {
    const watched = new Set(all.flat().filter((bookId) => bookId !== "hot"));
    expect(watched.size).toBe(100);
  });

  it("gives the same subscriber the same books in any process, from its number alone", () => {
    expect(subscribedBooks(917, BOOKS)).toEqual(subscribedBooks(917, { ...BOOKS, quiet: [...BOOKS.quiet] }));
  });
});

describe("the subscriber benchmark's purchases", () => {
  const schedule = purchaseSchedule({ purchasesPerSecond: 100, quietPurchasesPerSecond: 10, seconds: 3 }, BOOKS);
  const finals = finalCounts(schedule, BOOKS);

  it("buys the hot book 100 times a second and the quiet books 10 times a second in turn, in the order they are due", () => {
    expect(finals.hot).toBe(300);
    expect(schedule.filter(({ bookId }) => bookId !== "hot").map(({ bookId }) => bookId)).toEqual(
      Array.from({ length: 30 }, (_, index) => `quiet-${index}`),
    );
    expect(schedule.map(({ dueMs }) => dueMs)).toEqual([...schedule.map(({ dueMs }) => dueMs)].sort((a, b) => a - b));
    expect(schedule.at(-1)!.dueMs).toBeLessThan(3_000);
  });

  it("leaves the quiet books a short run does not reach at 0, and expects each purchase's count once per subscriber of its book", () => {
    expect([finals["quiet-29"], finals["quiet-30"]]).toEqual([1, 0]);
    // 20 subscribers: 12 on the hot page (300 each), quiet-0 to quiet-4 (1 each), 3 shelves of hot and quiet-0 to quiet-26 (300 + 9).
    expect(expectedValues(20, BOOKS, finals)).toBe(12 * 300 + 5 + 3 * (300 + 9));
  });
});

describe("issue 37's targets for the subscribers", () => {
  const row = (figures: Partial<SubscriberRow>): SubscriberRow => ({
    server: "API",
    subscribers: 10_000,
    purchases: 1_000,
    quietPurchases: 100,
    purchasesPerSecond: 100,
    p50Ms: 100,
    p99Ms: 500,
    delivered: 100_000,
    expected: 1_000_000,
    conflated: 900_000,
    atFinalCount: 10_000,
    idleBytesPerSubscriber: 50 * 1024,
    retainedBytesPerSubscriber: 10 * 1024,
    cpuMsPerPurchase: 10,
    cpuMsPerThousandEvents: 100,
    loadCpuMsPerThousandEvents: 50,
    benchCpuMsPerPurchase: 1,
    ...figures,
  });
  const targets = (figures: Partial<SubscriberRow>) =>
    subscriberTargets({ database: "the stand-in", plan: SUBSCRIBER_PLANS.quick, rows: [row(figures)] });
  const idle = (figures: Partial<SubscriberRow>) => targets(figures).find(({ target }) => target.includes("idle subscriber"))!;

  it("judges an idle subscriber by what it holds after garbage collection, with the RSS grown said beside it", () => {
    expect(idle({})).toMatchObject({ pass: true, failsRun: false, measured: expect.stringContaining("resident memory grew 50.0 KB") });
    expect(idle({ retainedBytesPerSubscriber: 21 * 1024, idleBytesPerSubscriber: 5 * 1024 }).pass).toBe(false);
  });

  it("fails the run when a subscriber misses a final count or receives more values than purchases brought", () => {
    const exact = (figures: Partial<SubscriberRow>) => targets(figures).filter(({ failsRun }) => failsRun);
    expect(exact({}).map(({ pass }) => pass)).toEqual([true, true]);
    expect(exact({ atFinalCount: 9_999 }).map(({ pass }) => pass)).toEqual([false, true]);
    expect(exact({ delivered: 1_000_001 }).map(({ pass }) => pass)).toEqual([true, false]);
  });
});
