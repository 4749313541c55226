import type { Document } from "mongodb";
import { graphql } from "../__generated__";
import { useTestApi } from "../support/api";
import { customerCursor } from "../../src/graphql/schema/cursors";
import { customers, seedBook } from "../support/factories";

/**
 * What the customer-side fields cost as a book grows: the same commands, and the same documents
 * examined (from `explain` of the very commands the API sent), for a typical and an outlier book.
 */
const api = useTestApi();
const READS = ["find", "aggregate", "distinct"];

/** The two books compared, by id: each one's sampled (embedded) buyers bought the same one other book. */
const SIZES = { typical: 50, outlier: 5000 } as const;

beforeAll(async () => {
  for (const [id, purchases] of Object.entries(SIZES)) await seedBook(api.db, id, customers(purchases, 0, `${id}-`));
  await seedBook(api.db, "other", [...customers(50, 0, "typical-"), ...customers(50, 0, "outlier-")]);
});

/** Documents examined by one command, as mongod's explain reports them, including a `$unionWith`'s own pipeline. */
async function docsExamined(command: Document): Promise<number> {
  const { lsid: _lsid, $db: _db, $clusterTime: _clusterTime, $readPreference: _readPreference, ...plain } = command;
  const explained = await api.db.command({ explain: plain, verbosity: "executionStats" });
  const stats = explained["executionStats"] ?? explained["stages"]?.[0]?.["$cursor"]?.["executionStats"];
  const unions = ((plain["pipeline"] ?? []) as Document[]).filter((stage) => stage["$unionWith"]).map((stage) => stage["$unionWith"]);
  const inner = await Promise.all(unions.map(({ coll, pipeline }) => docsExamined({ aggregate: coll, pipeline, cursor: {} })));
  expect(typeof stats?.totalDocsExamined).toBe("number");
  return inner.reduce((sum, count) => sum + count, stats.totalDocsExamined as number);
}

/** The commands one operation sent, with the documents each examined. */
async function costOf(run: () => Promise<unknown>): Promise<[string, string, number][]> {
  const commands = (await api.monitor.record(run)).filter((command) => READS.includes(command.commandName));
  return Promise.all(
    commands.map(
      async (event) =>
        [event.commandName, String(event.command[event.commandName]), await docsExamined(event.command)] as [string, string, number],
    ),
  );
}

const NEWEST = graphql(`
  query NewestBuyersCost($id: ID!) {
    book(id: $id) {
      customersPurchased(last: 20) {
        edges {
          node {
            id: databaseId
          }
        }
      }
    }
  }
`);
const DEEP = graphql(`
  query DeepBuyersCost($id: ID!, $after: String) {
    book(id: $id) {
      customersPurchased(first: 20, after: $after) {
        edges {
          node {
            id: databaseId
          }
        }
      }
    }
  }
`);
const BOUGHT = graphql(`
  query BoughtCost($id: ID!) {
    book(id: $id) {
      purchasedBy(customerId: "nobody")
    }
  }
`);
const ALSO_BOUGHT = graphql(`
  query AlsoBoughtCost($id: ID!) {
    book(id: $id) {
      alsoBought {
        sharedBuyers
        book {
          id: databaseId
        }
      }
    }
  }
`);

describe("the customer-side fields' cost as a book grows", () => {
  it("reads the newest and a deep window of an outlier's buyers from the book and one or two extra_sales pages", async () => {
    expect(await costOf(() => api.execute(NEWEST, { id: "outlier" }))).toEqual([
      ["find", "sales", 1],
      ["aggregate", "extra_sales", 1],
    ]);
    expect(await costOf(() => api.execute(DEEP, { id: "outlier", after: customerCursor(4039) }))).toEqual([
      ["find", "sales", 1],
      ["aggregate", "extra_sales", 2],
    ]);
  });

  it("answers purchasedBy for a customer who never bought the book examining at most the book itself, however many pages it has", async () => {
    const atMostOne = (cost: [string, string, number][]) =>
      cost.map(([command, collection, examined]) => [command, collection, examined <= 1]);
    expect(atMostOne(await costOf(() => api.execute(BOUGHT, { id: "typical" })))).toEqual([
      ["find", "sales", true],
      ["aggregate", "sales", true],
    ]);
    expect(atMostOne(await costOf(() => api.execute(BOUGHT, { id: "outlier" })))).toEqual([
      ["find", "sales", true],
      ["aggregate", "sales", true],
      ["aggregate", "extra_sales", true],
    ]);
  });

  it("costs alsoBought the same commands and documents for 50 purchases as for 5,000", async () => {
    const typical = await costOf(() => api.execute(ALSO_BOUGHT, { id: "typical" }));
    const outlier = await costOf(() => api.execute(ALSO_BOUGHT, { id: "outlier" }));
    // The book, its 50-buyer sample, one aggregation over both multikey indexes (the book itself and "other"), the recommended books.
    expect(typical).toEqual([
      ["find", "sales", 1],
      ["find", "sales", 1],
      ["aggregate", "sales", 2],
      ["find", "sales", 1],
    ]);
    expect(outlier).toEqual(typical);
  });
});
