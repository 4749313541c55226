import type { Collection, Document, Filter } from "mongodb";
import { useTestDatabase } from "./connect";
import { explainCommand, explainedRun, planShape, stageNamed, stagesNamed, type ExplainedRun } from "./explain";

/*
 * One test per plan shape mongod 7.0's classic planner builds for these reads. Each compares the
 * planned answer with a collection scan's (hint {$natural: 1}) put in the order mongod returns it,
 * and checks explain's stages and the keys and documents examined as mongod counts them:
 * - IXSCAN counts every key its index cursor hands it. A single interval (a point prefix, then at
 *   most one range) gives the cursor an end position, so the key past the end is never handed over;
 *   several intervals ($in) go through the bounds checker, which counts each key it looks at,
 *   including the one that shows a gap (then seeks) or the end of the bounds.
 * - FETCH counts each document it loads; COLLSCAN each document it walks.
 * - LIMIT stops calling its input once it has its amount; a SKIP under FETCH (mongod moves it
 *   there when the index bounds alone decide the filter) skips keys without loading documents.
 * - COUNT_SCAN also counts its last call, the one that finds no further key.
 */

/** Documents whose _id is a number, as every document here. */
type Numbered = Document & { _id: number };

const target = useTestDatabase("plans");

const GENRES = ["art", "biography", "crime", "drama", "essay"];
const SIZE = 200;

/**
 * Book i: genre i % 5 (40 each), year 1990 + floor(i / 5) (one per genre and year), price
 * (37 i) % 100 (each price 0..99 exactly twice, as 37 and 100 are coprime), stock i % 7 (unindexed).
 */
function book(i: number): Numbered {
  return { _id: i, genre: GENRES[i % GENRES.length], year: 1990 + Math.floor(i / GENRES.length), price: (37 * i) % 100, stock: i % 7 };
}

/** Inserted in a shuffled order (73 is coprime with 200), so natural order differs from _id order. */
async function seed(collection: Collection<Numbered>): Promise<void> {
  await collection.insertMany(Array.from({ length: SIZE }, (_, k) => book((73 * k) % SIZE)));
}

let books: Collection<Numbered>;
let shelves: Collection<Numbered>;

beforeAll(async () => {
  books = target.db.collection<Numbered>("books");
  await seed(books);
  await books.createIndex({ genre: 1 });
  await books.createIndex({ price: 1 });
  // The compound index lives apart, so that no query below races two indexes for the same field.
  shelves = target.db.collection<Numbered>("shelves");
  await seed(shelves);
  await shelves.createIndex({ genre: 1, year: -1 });
});

/** The documents a collection scan finds for the filter, in natural (insertion) order. */
function scan(collection: Collection<Numbered>, filter: Filter<Numbered>): Promise<Document[]> {
  return collection.find(filter).hint({ $natural: 1 }).toArray();
}

/** A stable sort by the given fields: what an index scan returns, ties staying in record (insertion) order. */
function inIndexOrder(documents: readonly Document[], fields: Record<string, 1 | -1>): Document[] {
  return [...documents].sort((a, b) => {
    for (const [field, direction] of Object.entries(fields)) {
      const x = a[field] as number | string;
      const y = b[field] as number | string;
      if (x !== y) return (x < y ? -1 : 1) * direction;
    }
    return 0;
  });
}

function explainFind(collection: Collection<Numbered>, filter: Filter<Numbered>, options: Document = {}): Promise<ExplainedRun> {
  return explainCommand(collection, { find: collection.collectionName, filter, ...options });
}

describe("a point lookup on _id", () => {
  test("returns the one document through IDHACK, examining one key and one document", async () => {
    expect(await books.find({ _id: 42 }).toArray()).toEqual(await scan(books, { _id: 42 }));
    const run = await explainFind(books, { _id: 42 });
    expect(planShape(run.winningPlan)).toBe("IDHACK");
    expect(run).toMatchObject({ nReturned: 1, totalKeysExamined: 1, totalDocsExamined: 1 });
  });

  test("examines nothing when no document has the _id", async () => {
    expect(await books.find({ _id: 1000 }).toArray()).toEqual([]);
    // IDHACK counts a key and a document only when the _id index holds the value.
    expect(await explainFind(books, { _id: 1000 })).toMatchObject({ nReturned: 0, totalKeysExamined: 0, totalDocsExamined: 0 });
  });
});

describe("equality on a secondary index", () => {
  test("returns the scan's documents through FETCH over IXSCAN, examining exactly the matching keys", async () => {
    const expected = await scan(books, { genre: "crime" });
    expect(expected).toHaveLength(40);
    // Equal keys sit in record order, which is the natural order the scan used.
    expect(await books.find({ genre: "crime" }).toArray()).toEqual(expected);
    const run = await explainFind(books, { genre: "crime" });
    expect(planShape(run.winningPlan)).toBe("FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({
      indexName: "genre_1",
      keyPattern: { genre: 1 },
      direction: "forward",
      isMultiKey: false,
      indexBounds: { genre: ['["crime", "crime"]'] },
    });
    // One point interval: the cursor's end position stops it at "drama" without handing that key over.
    expect(run).toMatchObject({ nReturned: 40, totalKeysExamined: 40, totalDocsExamined: 40 });
  });
});

describe("ranges on a secondary index", () => {
  // Each price appears twice, so a range over n prices matches 2n documents; one interval each.
  test.each([
    { filter: { price: { $gte: 20, $lt: 30 } }, bounds: "[20, 30)", matches: 20 },
    { filter: { price: { $gt: 90 } }, bounds: "(90, inf.0]", matches: 18 },
    { filter: { price: { $lte: 4 } }, bounds: "[-inf.0, 4]", matches: 10 },
    { filter: { price: { $lt: 0 } }, bounds: "[-inf.0, 0)", matches: 0 },
  ])("answers $filter.price in price order, examining only the $matches matching keys", async ({ filter, bounds, matches }) => {
    const expected = inIndexOrder(await scan(books, filter), { price: 1 });
    expect(expected).toHaveLength(matches);
    expect(await books.find(filter).toArray()).toEqual(expected);
    const run = await explainFind(books, filter);
    expect(planShape(run.winningPlan)).toBe("FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "price_1", indexBounds: { price: [bounds] } });
    expect(run).toMatchObject({ nReturned: matches, totalKeysExamined: matches, totalDocsExamined: matches });
  });

  test("stops a range after its limit, examining only the keys and documents it returns", async () => {
    const filter = { price: { $gte: 20 } };
    const expected = inIndexOrder(await scan(books, filter), { price: 1 }).slice(0, 5);
    expect(await books.find(filter).limit(5).toArray()).toEqual(expected);
    const run = await explainFind(books, filter, { limit: 5 });
    expect(planShape(run.winningPlan)).toBe("LIMIT > FETCH > IXSCAN");
    expect(run).toMatchObject({ nReturned: 5, totalKeysExamined: 5, totalDocsExamined: 5 });
  });
});

describe("$in on a secondary index", () => {
  test("scans one point interval per value and counts the keys that show each gap", async () => {
    const filter = { price: { $in: [5, 17, 42, 99] } };
    const expected = inIndexOrder(await scan(books, filter), { price: 1 });
    expect(expected).toHaveLength(8);
    expect(await books.find(filter).toArray()).toEqual(expected);
    const run = await explainFind(books, filter);
    expect(planShape(run.winningPlan)).toBe("FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexBounds: { price: ["[5, 5]", "[17, 17]", "[42, 42]", "[99, 99]"] } });
    // Two keys per value (8), plus the first key of 6, 18 and 43, each showing a gap before the
    // checker seeks on (3); after 99 the index ends, so no key shows the end: 11.
    expect(run).toMatchObject({ nReturned: 8, totalKeysExamined: 11, totalDocsExamined: 8 });
  });
});

describe("a compound index with a descending field", () => {
  test("serves an equality and a range on its fields as one interval, in the index's order", async () => {
    const filter = { genre: "crime", year: { $gte: 2020 } };
    const expected = inIndexOrder(await scan(shelves, filter), { year: -1 });
    expect(expected).toHaveLength(10);
    expect(await shelves.find(filter).toArray()).toEqual(expected);
    const run = await explainFind(shelves, filter);
    expect(planShape(run.winningPlan)).toBe("FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({
      indexName: "genre_1_year_-1",
      keyPattern: { genre: 1, year: -1 },
      direction: "forward",
      // year descends in the index, so its bounds run from high to low.
      indexBounds: { genre: ['["crime", "crime"]'], year: ["[inf.0, 2020]"] },
    });
    expect(run).toMatchObject({ nReturned: 10, totalKeysExamined: 10, totalDocsExamined: 10 });
  });

  test("serves an equality on its prefix alone, leaving the other field unbounded", async () => {
    const expected = inIndexOrder(await scan(shelves, { genre: "drama" }), { year: -1 });
    expect(await shelves.find({ genre: "drama" }).toArray()).toEqual(expected);
    const run = await explainFind(shelves, { genre: "drama" });
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({
      indexBounds: { genre: ['["drama", "drama"]'], year: ["[MaxKey, MinKey]"] },
    });
    expect(run).toMatchObject({ nReturned: 40, totalKeysExamined: 40, totalDocsExamined: 40 });
  });

  test.each([
    { sort: { genre: 1, year: -1 } as const, direction: "forward" },
    { sort: { genre: -1, year: 1 } as const, direction: "backward" },
  ])("provides sort $sort by walking $direction, skipping keys without fetching their documents", async ({ sort, direction }) => {
    const expected = inIndexOrder(await scan(shelves, {}), sort).slice(3, 7);
    expect(await shelves.find({}).sort(sort).skip(3).limit(4).toArray()).toEqual(expected);
    const run = await explainFind(shelves, {}, { sort, skip: 3, limit: 4 });
    expect(planShape(run.winningPlan)).toBe("LIMIT > FETCH > SKIP > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "genre_1_year_-1", direction });
    // skip + limit keys, then LIMIT stops; only the 4 documents past the skip are fetched.
    expect(run).toMatchObject({ nReturned: 4, totalKeysExamined: 7, totalDocsExamined: 4 });
  });

  test("provides a sort on its second field under an equality on its first, walking backward for ascending years", async () => {
    const expected = inIndexOrder(await scan(shelves, { genre: "drama" }), { year: 1 }).slice(0, 3);
    expect(await shelves.find({ genre: "drama" }).sort({ year: 1 }).limit(3).toArray()).toEqual(expected);
    const run = await explainFind(shelves, { genre: "drama" }, { sort: { year: 1 }, limit: 3 });
    expect(planShape(run.winningPlan)).toBe("LIMIT > FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ direction: "backward" });
    expect(run).toMatchObject({ nReturned: 3, totalKeysExamined: 3, totalDocsExamined: 3 });
  });

  test("cannot provide a sort whose directions disagree with it, so sorts the scanned documents", async () => {
    const sort = { genre: 1, year: 1 } as const;
    const expected = inIndexOrder(await scan(shelves, {}), sort).slice(0, 4);
    expect(await shelves.find({}).sort(sort).limit(4).toArray()).toEqual(expected);
    const run = await explainFind(shelves, {}, { sort, limit: 4 });
    expect(planShape(run.winningPlan)).toBe("SORT > COLLSCAN");
    expect(run).toMatchObject({ nReturned: 4, totalKeysExamined: 0, totalDocsExamined: SIZE });
  });
});

describe("$or whose every branch an index serves", () => {
  test("scans each branch's index and returns each document once", async () => {
    const filter = { $or: [{ genre: "crime" }, { price: { $in: [7, 44] } }] };
    // Branch by branch, in index order: the crime books, then the price-7 and price-44 books the
    // first branch did not already return (both price-44 books are crime books).
    const crime = await scan(books, { genre: "crime" });
    const priced = inIndexOrder(await scan(books, { price: { $in: [7, 44] } }), { price: 1 });
    const expected = [...crime, ...priced.filter((doc) => doc["genre"] !== "crime")];
    expect(expected).toHaveLength(42);
    expect(await books.find(filter).toArray()).toEqual(expected);
    const run = await explainFind(books, filter);
    expect(planShape(run.winningPlan)).toBe("SUBPLAN > FETCH > OR(IXSCAN, IXSCAN)");
    expect(stagesNamed(run.winningPlan, "IXSCAN").map((scanStage) => scanStage["indexName"])).toEqual(["genre_1", "price_1"]);
    // 40 crime keys (one interval); $in [7, 44]: 7, 7, the 8 that shows the gap, 44, 44, and the
    // 45 that shows the end (6). OR drops the two price-44 records before FETCH loads them.
    expect(run).toMatchObject({ nReturned: 42, totalKeysExamined: 46, totalDocsExamined: 42 });
    expect(stageNamed(run.executionStages, "OR")).toMatchObject({ dupsTested: 44, dupsDropped: 2 });
  });
});

describe("a sort the _id index provides", () => {
  test.each([
    { direction: 1 as const, ids: [10, 11, 12, 13, 14], walk: "forward", bounds: "[MinKey, MaxKey]" },
    { direction: -1 as const, ids: [189, 188, 187, 186, 185], walk: "backward", bounds: "[MaxKey, MinKey]" },
  ])("walks the index $walk and stops after skip + limit", async ({ direction, ids, walk, bounds }) => {
    const found = await books.find({}).sort({ _id: direction }).skip(10).limit(5).toArray();
    expect(found.map((doc) => doc["_id"])).toEqual(ids);
    expect(found).toEqual(inIndexOrder(await scan(books, {}), { _id: direction }).slice(10, 15));
    const run = await explainFind(books, {}, { sort: { _id: direction }, skip: 10, limit: 5 });
    expect(planShape(run.winningPlan)).toBe("LIMIT > FETCH > SKIP > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "_id_", direction: walk, indexBounds: { _id: [bounds] } });
    expect(run).toMatchObject({ nReturned: 5, totalKeysExamined: 15, totalDocsExamined: 5 });
  });

  test("pages after a given _id, examining only the page", async () => {
    const found = await books
      .find({ _id: { $gt: 100 } })
      .sort({ _id: 1 })
      .limit(21)
      .toArray();
    expect(found.map((doc) => doc["_id"])).toEqual(Array.from({ length: 21 }, (_, i) => 101 + i));
    const run = await explainFind(books, { _id: { $gt: 100 } }, { sort: { _id: 1 }, limit: 21 });
    expect(planShape(run.winningPlan)).toBe("LIMIT > FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexBounds: { _id: ["(100, inf.0]"] } });
    expect(run).toMatchObject({ nReturned: 21, totalKeysExamined: 21, totalDocsExamined: 21 });
  });
});

describe("a sort no index provides", () => {
  test("keeps only skip + limit documents in a top-k SORT over the collection scan", async () => {
    const sort = { stock: 1, _id: 1 } as const;
    const expected = inIndexOrder(await scan(books, {}), sort).slice(3, 10);
    expect(await books.find({}).sort(sort).skip(3).limit(7).toArray()).toEqual(expected);
    const run = await explainFind(books, {}, { sort, skip: 3, limit: 7 });
    expect(planShape(run.winningPlan)).toBe("SKIP > SORT > COLLSCAN");
    expect(stageNamed(run.winningPlan, "SORT")).toMatchObject({ sortPattern: sort, limitAmount: 10 });
    expect(run).toMatchObject({ nReturned: 7, totalKeysExamined: 0, totalDocsExamined: SIZE });
  });
});

describe("count", () => {
  test("counts a range from the index alone with COUNT_SCAN", async () => {
    const query = { price: { $gte: 90 } };
    const counted = await target.db.command({ count: "books", query });
    expect(counted["n"]).toBe((await scan(books, query)).length);
    expect(counted["n"]).toBe(20);
    const run = await explainCommand(books, { count: "books", query });
    expect(planShape(run.winningPlan)).toBe("COUNT > COUNT_SCAN");
    // COUNT_SCAN counts its last call too, the one that finds the index has no further key: 20 + 1.
    expect(run).toMatchObject({ totalKeysExamined: 21, totalDocsExamined: 0 });
  });

  test("counts a multikey index's keys with COUNT_SCAN, each document once, as mongod's index_count_scan.js", async () => {
    const tagged = target.db.collection<Numbered>("tagged");
    await tagged.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, tags: i % 3 === 0 ? ["amber", "amethyst"] : ["basalt"] })));
    await tagged.createIndex({ tags: 1 });
    const point = { tags: "amber" };
    expect((await target.db.command({ count: "tagged", query: point }))["n"]).toBe(10);
    const run = await explainCommand(tagged, { count: "tagged", query: point });
    expect(planShape(run.winningPlan)).toBe("COUNT > COUNT_SCAN");
    expect(run).toMatchObject({ totalKeysExamined: 11, totalDocsExamined: 0 });
    // Both of a document's tags fall in the range: 20 keys, 10 documents counted.
    const range = { tags: { $gte: "am", $lt: "an" } };
    expect((await target.db.command({ count: "tagged", query: range, hint: "tags_1" }))["n"]).toBe(10);
  });

  test("counts a filter no index serves by scanning the collection", async () => {
    const query = { stock: 3 };
    const counted = await target.db.command({ count: "books", query });
    expect(counted["n"]).toBe((await scan(books, query)).length);
    const run = await explainCommand(books, { count: "books", query });
    expect(planShape(run.winningPlan)).toBe("COUNT > COLLSCAN");
    expect(run).toMatchObject({ totalKeysExamined: 0, totalDocsExamined: SIZE });
  });

  test("answers count and estimatedDocumentCount without a query from the collection's size", async () => {
    expect(await books.estimatedDocumentCount()).toBe(SIZE);
    expect((await target.db.command({ count: "books" }))["n"]).toBe(SIZE);
    const run = await explainCommand(books, { count: "books" });
    expect(planShape(run.winningPlan)).toBe("RECORD_STORE_FAST_COUNT");
    expect(run).toMatchObject({ totalKeysExamined: 0, totalDocsExamined: 0 });
  });
});

describe("aggregate with a leading $match, $sort and $limit", () => {
  test("hands them to the planner, which walks the compound index and stops at the limit", async () => {
    const pipeline = [{ $match: { genre: "essay" } }, { $sort: { year: -1 } }, { $limit: 5 }];
    const expected = await shelves.aggregate(pipeline, { hint: { $natural: 1 } }).toArray();
    expect(expected.map((doc) => doc["year"])).toEqual([2029, 2028, 2027, 2026, 2025]);
    expect(await shelves.aggregate(pipeline).toArray()).toEqual(expected);
    const run = await explainCommand(shelves, { aggregate: "shelves", pipeline, cursor: {} });
    expect(planShape(run.winningPlan)).toBe("LIMIT > FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "genre_1_year_-1", direction: "forward" });
    expect(run).toMatchObject({ nReturned: 5, totalKeysExamined: 5, totalDocsExamined: 5 });
  });
});

test("reads the same figures from the driver's own explain as from the explain command", async () => {
  const viaCursor = explainedRun(await books.find({ genre: "art" }).explain("executionStats"));
  expect(viaCursor).toMatchObject({ nReturned: 40, totalKeysExamined: 40, totalDocsExamined: 40 });
});
