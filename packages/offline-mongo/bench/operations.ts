import type { Collection, Document, ObjectId } from "mongodb";

/** A benchmarked read: how to run its i-th repetition, and the figures mongod's explain gives for it. */
export interface Operation {
  readonly name: string;
  run(collection: Collection<Book>, ids: readonly ObjectId[], i: number): Promise<unknown>;
  /** The same read as an `explain` command body, for the i-th repetition. */
  explain(collection: Collection<Book>, ids: readonly ObjectId[], i: number): Document;
  /** The plan's stages from the root down, as mongod 7.0 builds it. */
  readonly stages: string;
  /** totalKeysExamined and totalDocsExamined as mongod defines them; they do not depend on the collection's size. */
  readonly keysExamined: number;
  readonly docsExamined: number;
}

/** A benchmark document: ObjectId _id in insertion order (as the catalog's books), and an indexed number. */
export interface Book {
  _id: ObjectId;
  n: number;
  title: string;
  price: number;
}

export const PAGE = 21;
export const IN_IDS = 50;
export const RANGE_LIMIT = 20;

/** Spreads repetitions over the collection, away from its last documents (a page after them would be short). */
function spread(ids: readonly ObjectId[], i: number): number {
  const usable = ids.length - PAGE - 1;
  return (i * 7919) % usable;
}

/** 50 _ids spaced across the collection; none is last, and no two are neighbours. */
function spacedIds(ids: readonly ObjectId[], i: number): ObjectId[] {
  const step = Math.floor((ids.length - 1) / IN_IDS);
  const start = i % (step - 1);
  return Array.from({ length: IN_IDS }, (_, k) => ids[start + k * step] as ObjectId);
}

function find(collection: Collection<Book>, filter: Document, options: Document = {}): Document {
  return { find: collection.collectionName, filter, ...options };
}

export const OPERATIONS: readonly Operation[] = [
  {
    name: "point lookup find({_id})",
    run: (collection, ids, i) => collection.find({ _id: ids[spread(ids, i)] }).toArray(),
    explain: (collection, ids, i) => find(collection, { _id: ids[spread(ids, i)] }),
    // IDHACK: one key looked up, one document loaded.
    stages: "IDHACK",
    keysExamined: 1,
    docsExamined: 1,
  },
  {
    name: `find({_id: {$gt}}).sort({_id: 1}).limit(${PAGE})`,
    run: (collection, ids, i) =>
      collection
        .find({ _id: { $gt: ids[spread(ids, i)] } })
        .sort({ _id: 1 })
        .limit(PAGE)
        .toArray(),
    explain: (collection, ids, i) => find(collection, { _id: { $gt: ids[spread(ids, i)] } }, { sort: { _id: 1 }, limit: PAGE }),
    // One interval from the given _id: LIMIT stops after 21 keys and 21 documents.
    stages: "LIMIT > FETCH > IXSCAN",
    keysExamined: PAGE,
    docsExamined: PAGE,
  },
  {
    name: `find({_id: {$in: ${IN_IDS} ids}})`,
    run: (collection, ids, i) => collection.find({ _id: { $in: spacedIds(ids, i) } }).toArray(),
    explain: (collection, ids, i) => find(collection, { _id: { $in: spacedIds(ids, i) } }),
    // 50 point intervals: each id's key, then the next key, which shows a gap (or, after the last
    // id, the end of the bounds) and is counted too: 100 keys, 50 documents.
    stages: "FETCH > IXSCAN",
    keysExamined: 2 * IN_IDS,
    docsExamined: IN_IDS,
  },
  {
    name: `find({n: {$gte}}).limit(${RANGE_LIMIT})`,
    run: (collection, ids, i) =>
      collection
        .find({ n: { $gte: spread(ids, i) } })
        .limit(RANGE_LIMIT)
        .toArray(),
    explain: (collection, ids, i) => find(collection, { n: { $gte: spread(ids, i) } }, { limit: RANGE_LIMIT }),
    // One interval on the n index; LIMIT stops after 20 keys and 20 documents.
    stages: "LIMIT > FETCH > IXSCAN",
    keysExamined: RANGE_LIMIT,
    docsExamined: RANGE_LIMIT,
  },
  {
    name: "count() (count command, no query)",
    run: (collection) => collection.estimatedDocumentCount(),
    explain: (collection) => ({ count: collection.collectionName }),
    // Answered from the collection's record count: nothing examined.
    stages: "RECORD_STORE_FAST_COUNT",
    keysExamined: 0,
    docsExamined: 0,
  },
];
