import { MongoServerError, type Db, type IndexDescriptionInfo } from "mongodb";

/** An index a caller relies on, as `createIndex` takes it; the domain says which (see `sales/indexes.ts`). */
export interface RequiredIndex {
  collection: string;
  name: string;
  key: Record<string, 1 | -1>;
  unique?: true;
  expireAfterSeconds?: number;
}

/**
 * What a connection keeps in place: resolves to the indexes it created (none when all were there), or
 * rejects with an error that names why one cannot be created yet. Run at start-up and after every reconnection.
 */
export type EnsureIndexes = (db: Db) => Promise<RequiredIndex[]>;

const NAMESPACE_NOT_FOUND = 26;

/** Creates each index in turn and returns them. A collection holding what an index forbids (duplicates under a unique key) makes it fail with E11000. */
export async function createIndexes(db: Db, indexes: RequiredIndex[]): Promise<RequiredIndex[]> {
  for (const { collection, name, key, ...options } of indexes) await db.collection(collection).createIndex(key, { name, ...options });
  return indexes;
}

/** The indexes of `required` missing from the database (or present with other options); writes nothing. */
export async function findMissingIndexes(db: Db, required: RequiredIndex[]): Promise<RequiredIndex[]> {
  const missing: RequiredIndex[] = [];
  for (const index of required) {
    if (!isInPlace(index, await listIndexes(db, index.collection))) missing.push(index);
  }
  return missing;
}

/** How logs and reports name an index: `collection.index`. */
export function indexLabel({ collection, name }: RequiredIndex): string {
  return `${collection}.${name}`;
}

async function listIndexes(db: Db, collection: string): Promise<IndexDescriptionInfo[]> {
  try {
    return await db.collection(collection).indexes();
  } catch (error) {
    // A dropped (or never created) collection has no indexes; creating the index creates it.
    if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

function isInPlace(wanted: RequiredIndex, existing: IndexDescriptionInfo[]): boolean {
  return existing.some(
    (index) =>
      index.name === wanted.name &&
      JSON.stringify(index.key) === JSON.stringify(wanted.key) &&
      (index.unique === true) === (wanted.unique === true) &&
      index.expireAfterSeconds === wanted.expireAfterSeconds,
  );
}
