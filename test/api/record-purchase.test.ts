import { graphql } from "../__generated__";
import { openTestApi, TEST_SETTINGS, type TestApi } from "../support/api";
import {
  RECORD_PURCHASE,
  addBook,
  customers,
  invariantViolations,
  readAllCustomers,
  recordPurchases,
  storedBook,
  storedPurchases,
} from "../support/factories";

const BUY_AND_LIST = graphql(`
  mutation BuyAndListBuyers($bookId: ID!, $customerId: ID!, $first: Int!) {
    recordPurchase(input: { bookId: $bookId, customerId: $customerId }) {
      book {
        customersPurchased(first: $first) {
          edges {
            node {
              id: databaseId
            }
          }
        }
      }
    }
  }
`);

/** A book as `addBook` stores it, with the given counts, as a purchase sends it back: without its embedded buyers. */
function bookWithoutBuyers(id: string, title: string, counts: { purchase_count: number; has_extras: boolean }) {
  return { _id: id, title, author: "A", ...counts, extra_page_size: TEST_SETTINGS.extraSalesPageSize };
}

let api: TestApi;
beforeAll(async () => void (api = await openTestApi()));
afterAll(() => api.close());

describe("recordPurchase at the manual's threshold of 50", () => {
  it("embeds purchases 1 to 50 and stores the 51st in extra_sales", async () => {
    const id = await addBook(api);
    const results = await recordPurchases(api, id, customers(51));

    expect(results.slice(0, 50).every((result) => result.recordPurchase.storedIn === "EMBEDDED")).toBe(true);
    expect(results[49]!.recordPurchase.book).toEqual({ id, purchaseCount: 50, hasExtras: false });
    expect(results[50]!.recordPurchase).toEqual({ storedIn: "EXTRA_SALES", book: { id, purchaseCount: 51, hasExtras: true } });

    const { book, pages } = await storedBook(api.db, id);
    expect(book?.customers_purchased).toEqual(customers(50));
    expect(pages).toEqual([{ book_id: book!._id, page: 0, count: 1, customers_purchased_extra: ["user50"] }]);
  });

  it("reproduces the manual's Wooden Amulet: user00-user49 embedded, user50-user999 in extra_sales", async () => {
    const id = await addBook(api, { title: "The Wooden Amulet" });
    await recordPurchases(api, id, customers(1000));
    const { book, pages } = await storedBook(api.db, id);
    expect(book?.customers_purchased).toEqual(customers(50));
    expect(pages.map((page) => page.customers_purchased_extra)).toEqual([customers(950, 50)]);
    expect(await invariantViolations(api.db, id)).toEqual([]);
  });

  it("records an embedded purchase in one round trip that sends back the book without its buyers", async () => {
    const id = await addBook(api, { id: "one-trip", title: "One trip", author: "A" });
    api.commands.reset();
    await recordPurchases(api, id, ["user00"]);
    expect(api.commands.names()).toEqual(["findAndModify"]);
    expect(api.commands.received()).toEqual([[bookWithoutBuyers("one-trip", "One trip", { purchase_count: 1, has_extras: false })]]);
  });

  it("reads the buyers a response shows with one query of its own, the write having sent back none", async () => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(5));
    api.commands.reset();
    const result = await api.execute(BUY_AND_LIST, { bookId: id, customerId: "user05", first: 2 });
    expect(result.data?.recordPurchase.book.customersPurchased.edges.map((edge) => edge.node.id)).toEqual(customers(2));
    expect(api.commands.names()).toEqual(["findAndModify", "find"]);
    expect(api.commands.received()[0]?.[0]).not.toHaveProperty("customers_purchased");
  });

  it("records the first extra sale it sees of a book in four round trips: try, flag, append, count", async () => {
    const id = await addBook(api);
    await recordPurchases(api, id, customers(50));
    api.commands.reset();
    await recordPurchases(api, id, ["user50"]);
    expect(api.commands.names()).toEqual(["findAndModify", "findAndModify", "findAndModify", "findAndModify"]);
  });

  it("records later extra sales of that book in two round trips, append and count, sending back the book without its buyers", async () => {
    const id = await addBook(api, { id: "two-trips", title: "Two trips", author: "A" });
    await recordPurchases(api, id, customers(51));
    api.commands.reset();
    await recordPurchases(api, id, ["user51"]);
    expect(api.commands.names()).toEqual(["findAndModify", "findAndModify"]);
    expect(api.commands.received()).toEqual([
      [{ count: 2 }],
      [bookWithoutBuyers("two-trips", "Two trips", { purchase_count: 52, has_extras: true })],
    ]);
    expect(await storedPurchases(api.db, id)).toEqual(customers(52));
  });

  it("answers NOT_FOUND for an unknown book and writes nothing", async () => {
    const result = await api.execute(RECORD_PURCHASE, { bookId: "no-such-book", customerId: "user00" });
    expect(result.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(await api.db.collection("sales").countDocuments({ _id: "no-such-book" as never })).toBe(0);
    expect(await api.db.collection("extra_sales").countDocuments({ book_id: "no-such-book" })).toBe(0);
  });

  it.each([
    ["an empty customer id", { customerId: "" }],
    ["an over-long customer id", { customerId: "c".repeat(129) }],
  ])("refuses %s with BAD_USER_INPUT and writes nothing", async (_case, input) => {
    const id = await addBook(api);
    const result = await api.execute(RECORD_PURCHASE, { bookId: id, ...input });
    expect(result.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect((await storedBook(api.db, id)).book?.purchase_count).toBe(0);
  });
});

describe("recordPurchase across extra_sales pages", () => {
  let small: TestApi;
  beforeAll(async () => void (small = await openTestApi({ settings: { outlierThreshold: 3, extraSalesPageSize: 4 } })));
  afterAll(() => small.close());

  it("fills each page to its size before opening the next", async () => {
    const id = await addBook(small);
    await recordPurchases(small, id, customers(3 + 4 + 4 + 1));
    const { pages } = await storedBook(small.db, id);
    expect(pages.map(({ page, count }) => [page, count])).toEqual([
      [0, 4],
      [1, 4],
      [2, 1],
    ]);
    expect(await storedPurchases(small.db, id)).toEqual(customers(12));
    expect(await invariantViolations(small.db, id, { outlierThreshold: 3, extraSalesPageSize: 4 })).toEqual([]);
  });

  it("keeps a book's page size when the configured size changes between runs", async () => {
    const id = await addBook(small);
    await recordPurchases(small, id, customers(9));
    await recordPurchases(small.withSettings({ extraSalesPageSize: 10 }), id, customers(6, 9));
    const { pages } = await storedBook(small.db, id);
    expect(pages.map(({ count }) => count)).toEqual([4, 4, 4]);
    expect(await readAllCustomers(small, id, 5)).toEqual(customers(15));
  });

  it("keeps outliers writing to extra_sales when the threshold is raised between runs", async () => {
    const id = await addBook(small);
    await recordPurchases(small, id, customers(5));
    const [later] = await recordPurchases(small.withSettings({ outlierThreshold: 50 }), id, ["late"]);
    expect(later!.recordPurchase.storedIn).toBe("EXTRA_SALES");
    expect((await storedBook(small.db, id)).book?.customers_purchased).toHaveLength(3);
    expect(await readAllCustomers(small, id, 2)).toEqual([...customers(5), "late"]);
  });
});

describe("recordPurchase under concurrency", () => {
  const settings = { outlierThreshold: 50, extraSalesPageSize: 7 };
  // All racers are sent at once, so every step of a purchase has about a hundred of them between its
  // read and its write: a check-then-act anywhere (3 embedded places left, pages of 7 opening 14 times)
  // stores too many buyers in a place or a page. Written in on purpose, reading the array's length or
  // the page's count before an unguarded push failed this test at 100 racers, and at 30. 300 took 4 to
  // 5 times as long as 100, since each racer retries every page that fills before its turn.
  const racers = 100;
  let racing: TestApi;
  beforeAll(async () => void (racing = await openTestApi({ settings })));
  afterAll(() => racing.close());

  it(`keeps every invariant when ${racers} purchases race on a book 3 short of the threshold`, async () => {
    const id = await addBook(racing);
    await recordPurchases(racing, id, customers(47, 0, "before-"));
    const buyers = customers(racers, 0, "racer-");

    const results = await Promise.all(buyers.map((customerId) => racing.execute(RECORD_PURCHASE, { bookId: id, customerId })));

    expect(results.filter((result) => result.errors)).toEqual([]);
    const storedIn = results.map((result) => result.data!.recordPurchase.storedIn);
    expect(storedIn.filter((where) => where === "EMBEDDED")).toHaveLength(3);
    expect(await invariantViolations(racing.db, id, settings)).toEqual([]);

    const stored = await storedPurchases(racing.db, id);
    expect(stored).toHaveLength(47 + racers);
    expect(new Set(stored).size).toBe(47 + racers);
    expect(stored.slice(0, 47)).toEqual(customers(47, 0, "before-"));
    expect([...stored.slice(47)].sort()).toEqual([...buyers].sort());

    expect(await readAllCustomers(racing, id, 13)).toEqual(stored);
  });
});
