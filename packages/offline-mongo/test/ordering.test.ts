import { Double, ObjectId, type Collection, type Document, type Filter, type Sort } from "mongodb";
import { useTestDatabase } from "./connect";
import { explainCommand, planShape, stageNamed } from "./explain";

/*
 * Index order against mongod's documented comparison order (MinKey, null and missing, numbers,
 * strings, objects, arrays, BinData, ObjectId, booleans, dates, ..., MaxKey), for values of mixed
 * types, arrays (multikey indexes), missing fields and compound keys with a descending field.
 * Each answer an index gives is compared with a collection scan's (hint {$natural: 1}).
 */

/** Documents whose _id is a number, as every document here. */
type Numbered = Document & { _id: number };

const target = useTestDatabase("ordering");

/** The mixed values, by _id; the expected orders below follow mongod's comparison order. */
const MIXED: Numbered[] = [
  { _id: 1 },
  { _id: 2, v: null },
  { _id: 3, v: 3 },
  { _id: 4, v: -1.5 },
  { _id: 5, v: 2 },
  { _id: 6, v: new Double(2) },
  { _id: 7, v: "b" },
  { _id: 8, v: "a" },
  { _id: 9, v: { k: 1 } },
  { _id: 10, v: { k: 0 } },
  { _id: 11, v: new ObjectId("000000000000000000000001") },
  { _id: 12, v: true },
  { _id: 13, v: false },
  { _id: 14, v: new Date(0) },
  { _id: 15, v: "" },
].map((doc) => ({ ...doc, g: doc._id % 2 === 0 ? "even" : "odd" }));

/**
 * By (v, _id): missing and null alike, then numbers (2 and 2.0 are one key), strings, objects
 * (field by field), ObjectId, false before true, dates.
 */
const MIXED_ASCENDING = [1, 2, 4, 5, 6, 3, 15, 8, 7, 10, 9, 11, 13, 12, 14];

/** Arrays: an index on tags holds one key per distinct element, and [] as undefined. */
const TAGGED: Numbered[] = [
  { _id: 1, tags: ["b", "a"] },
  { _id: 2, tags: ["c", "d"] },
  { _id: 3, tags: [] },
  { _id: 4 },
  { _id: 5, tags: "a" },
  { _id: 6, tags: ["a", "a"] },
  { _id: 7, tags: [["a"]] },
  { _id: 8, tags: [1, "z"] },
  { _id: 9, tags: null },
];

let mixed: Collection<Numbered>;
let tagged: Collection<Numbered>;

beforeAll(async () => {
  mixed = target.db.collection<Numbered>("mixed");
  await mixed.insertMany(MIXED);
  await mixed.createIndex({ v: 1, _id: 1 });
  await mixed.createIndex({ g: 1, v: -1, _id: 1 });
  tagged = target.db.collection<Numbered>("tagged");
  await tagged.insertMany(TAGGED);
  await tagged.createIndex({ tags: 1 });
});

/** The _ids a find returns, in its order; `natural` forces a collection scan. */
async function ids(collection: Collection<Numbered>, filter: Filter<Numbered>, sort?: Sort, natural = false): Promise<number[]> {
  let cursor = collection.find(filter);
  if (sort !== undefined) cursor = cursor.sort(sort);
  if (natural) cursor = cursor.hint({ $natural: 1 });
  return (await cursor.toArray()).map((doc) => doc._id);
}

function ascending(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

describe("values of mixed BSON types", () => {
  test("come out of an ascending index walk in mongod's comparison order, as a sorted collection scan does", async () => {
    expect(await ids(mixed, {}, { v: 1, _id: 1 })).toEqual(MIXED_ASCENDING);
    expect(await ids(mixed, {}, { v: 1, _id: 1 }, true)).toEqual(MIXED_ASCENDING);
    const run = await explainCommand(mixed, { find: "mixed", filter: {}, sort: { v: 1, _id: 1 } });
    expect(planShape(run.winningPlan)).toBe("FETCH > IXSCAN");
    expect(run).toMatchObject({ nReturned: MIXED.length, totalKeysExamined: MIXED.length, totalDocsExamined: MIXED.length });
  });

  test("come out of a backward walk in exactly the reverse order", async () => {
    const descending = [...MIXED_ASCENDING].reverse();
    expect(await ids(mixed, {}, { v: -1, _id: -1 })).toEqual(descending);
    expect(await ids(mixed, {}, { v: -1, _id: -1 }, true)).toEqual(descending);
    const run = await explainCommand(mixed, { find: "mixed", filter: {}, sort: { v: -1, _id: -1 } });
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "v_1__id_1", direction: "backward" });
  });

  // A range stays within its operand's type (mongod's type bracketing); each is one interval, so
  // the keys examined are exactly the matches.
  test.each([
    { name: "$gt 2: numbers above 2", filter: { v: { $gt: 2 } }, expected: [3] },
    { name: "$gte 2: 2, 2.0 and 3", filter: { v: { $gte: 2 } }, expected: [5, 6, 3] },
    { name: "$lt 'b': strings only", filter: { v: { $lt: "b" } }, expected: [15, 8] },
    { name: "$gt {k: 0}: objects only", filter: { v: { $gt: { k: 0 } } }, expected: [9] },
    { name: "$gte false: booleans only", filter: { v: { $gte: false } }, expected: [13, 12] },
    { name: "$lte a date: dates only", filter: { v: { $lte: new Date(0) } }, expected: [14] },
  ])("bracket a range by type ($name), from the index as from the scan", async ({ filter, expected }) => {
    expect(await ids(mixed, filter, { v: 1, _id: 1 })).toEqual(expected);
    expect(await ids(mixed, filter, { v: 1, _id: 1 }, true)).toEqual(expected);
    const run = await explainCommand(mixed, { find: "mixed", filter, sort: { v: 1, _id: 1 } });
    expect(run).toMatchObject({ nReturned: expected.length, totalKeysExamined: expected.length, totalDocsExamined: expected.length });
  });

  test("answer an $in over several types from one interval per value", async () => {
    const filter = { v: { $in: [null, 2, "a", true] } };
    const expected = [1, 2, 5, 6, 8, 12];
    expect(await ids(mixed, filter, { v: 1, _id: 1 })).toEqual(expected);
    expect(await ids(mixed, filter, { v: 1, _id: 1 }, true)).toEqual(expected);
    const run = await explainCommand(mixed, { find: "mixed", filter, sort: { v: 1, _id: 1 } });
    // Six matching keys, plus the key after each run of matches: -1.5 (gap), 3 (gap), "b" (gap)
    // and the date (past the last interval): 10.
    expect(run).toMatchObject({ nReturned: 6, totalKeysExamined: 10, totalDocsExamined: 6 });
  });
});

describe("a compound index with a descending field", () => {
  test("provides a descending sort on its second field under an equality on its first", async () => {
    const odd = MIXED_ASCENDING.filter((id) => id % 2 === 1).reverse();
    // Descending v, then ascending _id: 2 and 2.0 are one key, so _id still orders them (5 is odd, 6 is not).
    expect(await ids(mixed, { g: "odd" }, { v: -1, _id: 1 })).toEqual(odd);
    expect(await ids(mixed, { g: "odd" }, { v: -1, _id: 1 }, true)).toEqual(odd);
    const run = await explainCommand(mixed, { find: "mixed", filter: { g: "odd" }, sort: { v: -1, _id: 1 } });
    expect(planShape(run.winningPlan)).toBe("FETCH > IXSCAN");
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "g_1_v_-1__id_1", direction: "forward" });
    expect(run).toMatchObject({ nReturned: odd.length, totalKeysExamined: odd.length, totalDocsExamined: odd.length });
  });

  test("provides the fully reversed sort by walking backward", async () => {
    const sort = { g: -1, v: 1, _id: -1 } as const;
    const expected = await ids(mixed, {}, sort, true);
    expect(expected).toHaveLength(MIXED.length);
    expect(await ids(mixed, {}, sort)).toEqual(expected);
    const run = await explainCommand(mixed, { find: "mixed", filter: {}, sort });
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "g_1_v_-1__id_1", direction: "backward" });
  });
});

describe("arrays in a multikey index", () => {
  test("find a document once by any of its elements, or by a scalar equal to the value", async () => {
    expect(await ids(tagged, { tags: "a" })).toEqual([1, 5, 6]);
    expect(await ids(tagged, { tags: "a" }, undefined, true)).toEqual([1, 5, 6]);
    const run = await explainCommand(tagged, { find: "tagged", filter: { tags: "a" } });
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: "tags_1", isMultiKey: true });
    // ["a", "a"] is indexed under "a" once: one key per document holding "a".
    expect(run).toMatchObject({ nReturned: 3, totalKeysExamined: 3, totalDocsExamined: 3 });
  });

  test("drop a document's second key in a range before fetching it again", async () => {
    const filter = { tags: { $gte: "b" } };
    expect(await ids(tagged, filter)).toEqual([1, 2, 8]);
    expect(ascending(await ids(tagged, filter, undefined, true))).toEqual([1, 2, 8]);
    const run = await explainCommand(tagged, { find: "tagged", filter });
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexBounds: { tags: ['["b", {})'] } });
    // Keys "b" (1), "c" and "d" (both 2), "z" (8): 4; the IXSCAN drops 2's second key, so 3 fetches.
    expect(run).toMatchObject({ nReturned: 3, totalKeysExamined: 4, totalDocsExamined: 3 });
    expect(stageNamed(run.executionStages, "IXSCAN")).toMatchObject({ dupsTested: 4, dupsDropped: 1 });
  });

  test("match null for missing and null values but not for an empty array", async () => {
    expect(await ids(tagged, { tags: null })).toEqual([4, 9]);
    expect(await ids(tagged, { tags: null }, undefined, true)).toEqual([4, 9]);
    const run = await explainCommand(tagged, { find: "tagged", filter: { tags: null } });
    // mongod 7.0 scans [undefined, undefined] too, since null still equals the undefined value before 8.0:
    // the empty array's undefined key (3) is examined and fetched, then refused by the filter. With two
    // intervals the scan checks keys against the bounds itself, so the first key past them ("a") counts too.
    expect(run).toMatchObject({ nReturned: 2, totalKeysExamined: 4, totalDocsExamined: 3 });
  });

  test.each([
    { name: "[]", filter: { tags: [] }, expected: [3] },
    { name: "['a']", filter: { tags: ["a"] }, expected: [7] },
    { name: "['b', 'a']", filter: { tags: ["b", "a"] }, expected: [1] },
    { name: "$in [[], 'd']", filter: { tags: { $in: [[], "d"] } }, expected: [2, 3] },
  ])("match an array value ($name) from the index as the scan does", async ({ filter, expected }) => {
    expect(ascending(await ids(tagged, filter))).toEqual(expected);
    expect(ascending(await ids(tagged, filter, undefined, true))).toEqual(expected);
  });

  test("exclude with $nin exactly the documents its $in of arrays matches", async () => {
    expect(ascending(await ids(tagged, { tags: { $nin: [[], "d"] } }, undefined, true))).toEqual([1, 4, 5, 6, 7, 8, 9]);
  });

  test("sort by each array's smallest element ascending, an empty array before null and missing", async () => {
    // [] first; missing and null alike (4, 9); then by smallest element: 1 (8), "a" (1, 5, 6), "c" (2), ["a"] (7).
    const expected = [3, 4, 9, 8, 1, 5, 6, 2, 7];
    expect(await ids(tagged, {}, { tags: 1, _id: 1 })).toEqual(expected);
    expect(await ids(tagged, {}, { tags: 1, _id: 1 }, true)).toEqual(expected);
    // A multikey index cannot give this order, so the documents are sorted.
    const run = await explainCommand(tagged, { find: "tagged", filter: {}, sort: { tags: 1, _id: 1 } });
    expect(planShape(run.winningPlan)).toBe("SORT > COLLSCAN");
  });

  test("sort by each array's largest element descending", async () => {
    // Largest elements: ["a"] (7), "z" (8), "d" (2), "b" (1), "a" (5, 6), then null and missing (4, 9), then [] (3).
    const expected = [7, 8, 2, 1, 5, 6, 4, 9, 3];
    expect(await ids(tagged, {}, { tags: -1, _id: 1 })).toEqual(expected);
    expect(await ids(tagged, {}, { tags: -1, _id: 1 }, true)).toEqual(expected);
  });
});

describe("keys of one type in a compound index", () => {
  // The orders index maintenance takes a shortcut to: strings by their UTF-8 bytes (U+FFFD is EF BF BD, before
  // F0 9F 98 80 of U+1F600, though UTF-16 puts U+1F600's D83D first), NaN before -Infinity, ObjectIds by their 12 bytes.
  const SAME_TYPE: Numbered[] = [
    { _id: 1, s: "\u{1F600}", n: Number.NaN, o: new ObjectId("ff0000000000000000000000") },
    { _id: 2, s: "\uFFFD", n: -Infinity, o: new ObjectId("0a0000000000000000000000") },
    { _id: 3, s: "z", n: 0, o: new ObjectId("09ffffffffffffffffffffff") },
    { _id: 4, s: "", n: -0.5, o: new ObjectId("0a0000000000000000000001") },
    { _id: 5, s: "Z", n: Infinity, o: new ObjectId("000000000000000000000000") },
  ];

  let same: Collection<Numbered>;
  beforeAll(async () => {
    same = target.db.collection<Numbered>("same_type");
    await same.insertMany(SAME_TYPE);
    // Each index built over stored documents and kept on later inserts: both compare keys.
    for (const field of ["s", "n", "o"]) await same.createIndex({ g: 1, [field]: 1, _id: 1 });
    await same.insertMany(SAME_TYPE.map((doc) => ({ ...doc, _id: doc._id + 10 })));
  });

  test.each([
    { field: "s", expected: [4, 14, 5, 15, 3, 13, 2, 12, 1, 11] },
    { field: "n", expected: [1, 11, 2, 12, 4, 14, 3, 13, 5, 15] },
    { field: "o", expected: [5, 15, 3, 13, 2, 12, 4, 14, 1, 11] },
  ])("come out of the index by $field in mongod's order, as a sorted collection scan does", async ({ field, expected }) => {
    const sort = { g: 1, [field]: 1, _id: 1 } as const;
    expect(await ids(same, {}, sort)).toEqual(expected);
    expect(await ids(same, {}, sort, true)).toEqual(expected);
    const run = await explainCommand(same, { find: "same_type", filter: {}, sort });
    expect(stageNamed(run.winningPlan, "IXSCAN")).toMatchObject({ indexName: `g_1_${field}_1__id_1` });
  });
});
