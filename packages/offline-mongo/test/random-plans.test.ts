import fc from "fast-check";
import { ObjectId, type Collection, type Document, type Filter, type Sort } from "mongodb";
import { useTestDatabase } from "./connect";
import { explainCommand, planShape } from "./explain";

/*
 * Thousands of generated queries over generated documents, each answered twice: as the planner
 * chooses (index scans, $or branches, sorts an index provides) and by a forced collection scan
 * (hint {$natural: 1}). The answers must be the same documents, in the same order wherever the
 * query fixes one. The seed is fixed, so a failure names queries that fail again on the next run.
 */

const SEED = 20_261_123;
const DOCUMENTS = 120;
const QUERIES_PER_COLLECTION = 750;
const CONCURRENT_QUERIES = 16;
const PLANS_INSPECTED = 100;

type Numbered = Document & { _id: number };

const target = useTestDatabase("random_plans");

const OBJECT_IDS = ["000000000000000000000001", "000000000000000000000002", "0000000000000000000000ff"].map((hex) => new ObjectId(hex));
const DATES = [new Date(0), new Date(86_400_000)];

/** Few distinct values of every common BSON type, so that generated values and operands often collide. */
const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(-1.5, 0.5, 2.5),
  fc.constantFrom("", "a", "ab", "b", "B"),
  fc.constant(null),
  fc.constantFrom(...OBJECT_IDS),
  fc.boolean(),
  fc.constantFrom(...DATES),
  fc.constantFrom({ x: 1 }, { x: 2 }, { y: 1 }),
);

/** A field's value: a scalar, or (where arrays are allowed) sometimes an array of scalars, empty included. */
function fieldValue(arrays: boolean): fc.Arbitrary<unknown> {
  return arrays ? fc.oneof({ arbitrary: scalar, weight: 3 }, { arbitrary: fc.array(scalar, { maxLength: 3 }), weight: 1 }) : scalar;
}

/**
 * A document with any of the fields a, b, c (indexed) and d (not indexed), each possibly missing.
 * b stays scalar: a and b share a compound index, and mongod cannot index two arrays in one key.
 */
function document(arrays: boolean): fc.Arbitrary<Document> {
  const value = fieldValue(arrays);
  return fc.record({ a: value, b: scalar, c: value, d: value }, { requiredKeys: [] });
}

const operand = fieldValue(true);

/** One field's predicate: the shapes the planner turns into bounds, and some it must leave to the filter. */
const predicate: fc.Arbitrary<unknown> = fc.oneof(
  operand,
  fc.tuple(fc.constantFrom("$eq", "$gt", "$gte", "$lt", "$lte", "$ne"), scalar).map(([op, value]) => ({ [op]: value })),
  fc
    .tuple(fc.constantFrom("$gt", "$gte"), scalar, fc.constantFrom("$lt", "$lte"), scalar)
    .map(([low, from, high, to]) => ({ [low]: from, [high]: to })),
  fc.array(operand, { maxLength: 4 }).map((values) => ({ $in: values })),
  fc.boolean().map((exists) => ({ $exists: exists })),
);

const conjunction: fc.Arbitrary<Document> = fc.record({ a: predicate, b: predicate, c: predicate, d: predicate }, { requiredKeys: [] });

const filter: fc.Arbitrary<Document> = fc.oneof(
  { arbitrary: conjunction, weight: 4 },
  { arbitrary: fc.tuple(conjunction, conjunction).map(([left, right]) => ({ $or: [left, right] })), weight: 1 },
);

/** Sorts ending in _id, so that every order is total; some an index provides forward or backward, some none does. */
const SORTS: Sort[] = [
  { _id: 1 },
  { _id: -1 },
  { a: 1, _id: 1 },
  { a: -1, _id: -1 },
  { b: -1, a: 1, _id: 1 },
  { b: 1, a: -1, _id: -1 },
  { c: 1, _id: 1 },
  { d: -1, _id: 1 },
];

interface Query {
  readonly filter: Document;
  /** With a sort come skip and limit; without one the order is the plan's own, so only the set is compared. */
  readonly page?: { readonly sort: Sort; readonly skip: number; readonly limit: number };
}

const query: fc.Arbitrary<Query> = fc.record(
  {
    filter,
    page: fc.record({ sort: fc.constantFrom(...SORTS), skip: fc.integer({ min: 0, max: 20 }), limit: fc.integer({ min: 0, max: 30 }) }),
  },
  { requiredKeys: ["filter"] },
);

/** The _ids the query finds (only they come back: both answers read the same stored documents). */
async function run(collection: Collection<Numbered>, { filter: where, page }: Query, natural: boolean): Promise<number[]> {
  let cursor = collection.find(where as Filter<Numbered>, { projection: { _id: 1 } });
  // limit 0 is no limit, as mongod reads it.
  if (page !== undefined) cursor = cursor.sort(page.sort).skip(page.skip).limit(page.limit);
  if (natural) cursor = cursor.hint({ $natural: 1 });
  return (await cursor.toArray()).map((found) => found._id);
}

function ascending(ids: number[]): number[] {
  return [...ids].sort((x, y) => x - y);
}

/** Generated documents, numbered by _id but inserted in a shuffled order (7 is coprime with 120). */
async function seededCollection(name: string, arrays: boolean): Promise<Collection<Numbered>> {
  const generated = fc.sample(document(arrays), { seed: SEED, numRuns: DOCUMENTS });
  const collection = target.db.collection<Numbered>(name);
  await collection.insertMany(generated.map((_, k) => ({ ...generated[(7 * k) % DOCUMENTS], _id: (7 * k) % DOCUMENTS })));
  const keys: Document[] = [{ a: 1 }, { b: -1 }, { a: 1, _id: 1 }, { b: -1, a: 1, _id: 1 }, { c: 1 }];
  for (const key of keys) await collection.createIndex(key);
  return collection;
}

/** The queries whose two answers differ, each with both answers. */
async function disagreements(collection: Collection<Numbered>, queries: readonly Query[]): Promise<Document[]> {
  const found: Document[] = [];
  // Queries go in concurrent groups, so that round trips overlap on a busy machine; each is independent.
  for (let start = 0; start < queries.length; start += CONCURRENT_QUERIES) {
    await Promise.all(
      queries.slice(start, start + CONCURRENT_QUERIES).map(async (generated) => {
        const [planned, scanned] = await Promise.all([run(collection, generated, false), run(collection, generated, true)]);
        const same = generated.page === undefined ? equalIds(ascending(planned), ascending(scanned)) : equalIds(planned, scanned);
        if (!same) found.push({ query: generated, planned, scanned });
      }),
    );
  }
  return found;
}

function equalIds(x: readonly number[], y: readonly number[]): boolean {
  return x.length === y.length && x.every((id, i) => id === y[i]);
}

/** The stage names of the plans chosen for the first queries: the comparison means something only if they vary. */
async function stagesChosen(collection: Collection<Numbered>, queries: readonly Query[]): Promise<Set<string>> {
  const stages = new Set<string>();
  for (const { filter: where, page } of queries.slice(0, PLANS_INSPECTED)) {
    const run = await explainCommand(collection, { find: collection.collectionName, filter: where, ...(page ?? {}) });
    for (const stage of planShape(run.winningPlan).split(/[^A-Z_]+/)) if (stage !== "") stages.add(stage);
  }
  return stages;
}

async function expectPlannedToMatchScan(collection: Collection<Numbered>): Promise<void> {
  const queries = fc.sample(query, { seed: SEED, numRuns: QUERIES_PER_COLLECTION });
  expect([...(await stagesChosen(collection, queries))]).toEqual(expect.arrayContaining(["IXSCAN", "OR", "SORT", "COLLSCAN"]));
  const found = await disagreements(collection, queries);
  // The first few, whole, so that a failure shows the queries to replay.
  expect(found.slice(0, 5)).toEqual([]);
}

test("index-planned answers equal the collection scan's over scalar values of mixed types", async () => {
  await expectPlannedToMatchScan(await seededCollection("scalars", false));
});

test("index-planned answers equal the collection scan's over arrays, whose indexes are multikey", async () => {
  await expectPlannedToMatchScan(await seededCollection("arrays", true));
});
