import { BSON, ObjectId, UUID, type Document } from "bson";
import { ErrorCode, LocationCode, MongoCommandError } from "../errors";
import { describeIndex, Index, type IndexSpec, type KeyChange } from "./indexes";
import { RecordStore, StorageMeter, type StoredDocument } from "./records";
import { toPlain } from "../values/values";

export const MAX_BSON_SIZE = 16 * 1024 * 1024;

export type { StoredDocument } from "./records";

const ID_INDEX: IndexSpec = { name: "_id_", key: { _id: 1 }, unique: true, sparse: false };

/** What one write does to the collection's indexes: each index with the keys it takes out and puts in, in index order. */
export type IndexChanges = readonly (readonly [Index, KeyChange])[];

/**
 * Asked before each write, and throws to stop it, as transactions' conflicts and locks do (see `transactions.ts`).
 */
export interface WriteGuard {
  /**
   * A write to a document, with the document as stored (none for an insert) and as it will be (none for a
   * delete), and the index keys it changes.
   */
  beforeWrite(collection: Collection, before: StoredDocument | undefined, after: Document | undefined, changes: IndexChanges): void;
  /** A change to the catalog: a collection created or dropped, or one of its indexes built or dropped. */
  beforeCatalogChange(database: string, name: string, change: CatalogChange): void;
  /** A write that has been made: what the replica set's history records (see `change-log.ts`). */
  afterWrite?(collection: Collection, write: DocumentWrite): void;
  /** A change to the catalog that has been made, for the history too. */
  afterCatalogChange?(change: CatalogWrite): void;
}

/** A change made to the catalog, as the history records it (mongod's oplog command entries). */
export interface CatalogWrite {
  readonly operation: "create" | "drop" | "rename" | "dropDatabase" | "createIndexes" | "dropIndexes" | "modify";
  readonly db: string;
  /** The collection (none for `dropDatabase`). */
  readonly collection?: Collection;
  /** What mongod's expanded events say of it (`operationDescription`). */
  readonly description?: Document;
  /** A rename's new namespace. */
  readonly to?: { readonly db: string; readonly coll: string };
}

/** A write made to a document: the record before (none for an insert) and after (none for a delete). */
export interface DocumentWrite {
  readonly operation: "insert" | "update" | "replace" | "delete";
  readonly before: StoredDocument | undefined;
  readonly after: StoredDocument | undefined;
}

export type CatalogChange = "create" | "drop" | "index";

export class Collection {
  /** Insertion order is natural order; replacing a record keeps its position. */
  private records: RecordStore;
  private indexList: Index[];
  private nextId = 1;
  private bytes = 0;
  /** `changeStreamPreAndPostImages: {enabled: true}`: the history keeps each write's document before and after. */
  keepsImages = false;

  constructor(
    readonly database: string,
    readonly name: string,
    private readonly meter: StorageMeter,
    private readonly guard: WriteGuard | undefined = undefined,
    readonly uuid = new UUID(),
  ) {
    this.records = new RecordStore(meter);
    this.indexList = [new Index(ID_INDEX, this.namespace, meter)];
  }

  /**
   * A copy as of now, written through `guard`: a transaction's snapshot. Records are immutable, and the
   * record store and index trees copy on write, so it costs nothing until the copy writes.
   */
  snapshot(guard: WriteGuard): Collection {
    const copy = new Collection(this.database, this.name, this.meter, guard, this.uuid);
    copy.records = this.records.clone();
    copy.indexList = this.indexList.map((index) => index.clone());
    copy.nextId = this.nextId;
    copy.bytes = this.bytes;
    copy.keepsImages = this.keepsImages;
    return copy;
  }

  get namespace(): string {
    return `${this.database}.${this.name}`;
  }

  get indexes(): readonly Index[] {
    return this.indexList;
  }

  get size(): number {
    return this.records.size;
  }

  /** The BSON size of every stored document, kept as they change so no command walks the data to learn it. */
  get dataSize(): number {
    return this.bytes;
  }

  all(): StoredDocument[] {
    return [...this.records.values()];
  }

  /** A live walk in natural order: it sees records inserted after it started and skips deleted ones. */
  scan(): Iterator<StoredDocument> {
    return this.records.values();
  }

  record(id: number): StoredDocument | undefined {
    return this.records.get(id);
  }

  /** The record with this `_id`, through the `_id` index. */
  findById(id: unknown): StoredDocument | undefined {
    const recordId = this.idIndex.idOf([toPlain(id)]);
    return recordId === undefined ? undefined : this.records.get(recordId);
  }

  private get idIndex(): Index {
    return this.indexList[0] as Index;
  }

  /** Validates then stores; `_id` is generated when missing and always placed first, as mongod does. */
  insert(input: Document): StoredDocument {
    const doc = withIdFirst(input);
    const size = BSON.calculateObjectSize(doc);
    if (size > MAX_BSON_SIZE) {
      throw new MongoCommandError(
        ErrorCode.BSONObjectTooLarge,
        `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_SIZE}`,
      );
    }
    validateId(doc["_id"]);
    const changes = this.indexChanges(undefined, doc);
    this.guard?.beforeWrite(this, undefined, doc, changes);
    checkUnique(changes);
    const record: StoredDocument = { id: this.nextId++, doc, plain: toPlain(doc) as Document, bytes: size };
    this.records.set(record);
    this.bytes += size;
    applyChanges(record.id, changes);
    this.guard?.afterWrite?.(this, { operation: "insert", before: undefined, after: record });
    return record;
  }

  /**
   * Stores the new version of a record, changing only the index keys that differ (none when no indexed field
   * changed); `operation` says whether an update or a replacement wrote it, as the history records it. `size` is the
   * document's BSON size, when the caller has already measured it.
   */
  replace(old: StoredDocument, doc: Document, operation: "update" | "replace", size = BSON.calculateObjectSize(doc)): StoredDocument {
    if (size > MAX_BSON_SIZE)
      throw new MongoCommandError(
        LocationCode.DocumentTooLargeAfterUpdate,
        `Resulting document after update is larger than ${MAX_BSON_SIZE}`,
      );
    const changes = this.indexChanges(old.doc, doc);
    this.guard?.beforeWrite(this, old, doc, changes);
    checkUnique(changes);
    const record: StoredDocument = { id: old.id, doc, plain: toPlain(doc) as Document, bytes: size };
    this.bytes += size - old.bytes;
    this.records.set(record);
    applyChanges(old.id, changes);
    this.guard?.afterWrite?.(this, { operation, before: old, after: record });
    return record;
  }

  remove(record: StoredDocument): void {
    const changes = this.indexChanges(record.doc, undefined);
    this.guard?.beforeWrite(this, record, undefined, changes);
    applyChanges(record.id, changes);
    if (this.records.delete(record.id)) this.bytes -= record.bytes;
    this.guard?.afterWrite?.(this, { operation: "delete", before: record, after: undefined });
  }

  /** What a write of `before` into `after` does to each index; indexes whose keys it leaves alone are left out. */
  private indexChanges(before: Document | undefined, after: Document | undefined): IndexChanges {
    return this.indexList.flatMap((index) => {
      const change = index.keyChange(before, after);
      return change.removed.length + change.added.length + change.arrayFields.length > 0 ? [[index, change] as const] : [];
    });
  }

  /** Builds the index over existing documents first, so a failing build leaves nothing behind. */
  addIndex(spec: IndexSpec): void {
    this.guard?.beforeCatalogChange(this.database, this.name, "index");
    const index = new Index(spec, this.namespace, this.meter);
    index.build([...this.records.values()]);
    this.indexList.push(index);
    this.guard?.afterCatalogChange?.({
      operation: "createIndexes",
      db: this.database,
      collection: this,
      description: { indexes: [describeIndex(spec)] },
    });
  }

  dropIndex(name: string): void {
    const position = this.indexList.findIndex((index) => index.spec.name === name);
    if (position <= 0) return;
    this.guard?.beforeCatalogChange(this.database, this.name, "index");
    const [dropped] = this.indexList.splice(position, 1);
    if (dropped !== undefined)
      this.guard?.afterCatalogChange?.({
        operation: "dropIndexes",
        db: this.database,
        collection: this,
        description: { indexes: [describeIndex(dropped.spec)] },
      });
  }

  /** `collMod`, with the one option the stand-in keeps (`changeStreamPreAndPostImages`): recorded as a modify, as on mongod. */
  modify(keepImages: boolean | undefined): void {
    if (keepImages !== undefined) this.keepsImages = keepImages;
    const description = keepImages === undefined ? {} : { changeStreamPreAndPostImages: { enabled: keepImages } };
    this.guard?.afterCatalogChange?.({ operation: "modify", db: this.database, collection: this, description });
  }

  /** The same collection (records, indexes, UUID) under a new name, for a rename. */
  renamed(database: string, name: string, guard: WriteGuard | undefined): Collection {
    const copy = new Collection(database, name, this.meter, guard, this.uuid);
    copy.records = this.records.clone();
    copy.indexList = this.indexList.map((index) => index.clone(copy.namespace));
    copy.nextId = this.nextId;
    copy.bytes = this.bytes;
    copy.keepsImages = this.keepsImages;
    return copy;
  }

  describeIndexes(): Document[] {
    return this.indexList.map((index) => describeIndex(index.spec));
  }
}

function checkUnique(changes: IndexChanges): void {
  for (const [index, change] of changes) index.checkUnique(change);
}

function applyChanges(id: number, changes: IndexChanges): void {
  for (const [index, change] of changes) index.apply(id, change);
}

function withIdFirst(input: Document): Document {
  const { _id: id, ...rest } = input;
  return { _id: id === undefined ? new ObjectId() : id, ...rest };
}

function validateId(id: unknown): void {
  if (Array.isArray(id)) throw new MongoCommandError(ErrorCode.InvalidIdField, "can't use an array for _id");
}

export class Database {
  readonly collections = new Map<string, Collection>();
  constructor(readonly name: string) {}
}

export function validateCollectionName(name: string): void {
  if (name.length === 0 || name.includes("$") || name.includes("\0") || name.startsWith("system.")) {
    throw new MongoCommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${name}`);
  }
}

/** All databases of one server instance, in memory. */
export class Storage {
  private readonly databases = new Map<string, Database>();

  /** Collections created in this storage since it was taken as a snapshot (by namespace); always empty in the committed data. */
  readonly created = new Set<string>();

  /** `guard` is asked before every write to every collection of this storage; `meter` counts the records they visit. */
  constructor(
    private readonly guard: WriteGuard | undefined = undefined,
    readonly meter = new StorageMeter(),
    private readonly isSnapshot = false,
  ) {}

  /** Every collection as of now, written through `guard`: a transaction's view of the data, costing one tree root per collection. */
  snapshot(guard: WriteGuard): Storage {
    const copy = new Storage(guard, this.meter, true);
    for (const [name, database] of this.databases) {
      const clone = copy.database(name);
      for (const [collectionName, collection] of database.collections) clone.collections.set(collectionName, collection.snapshot(guard));
    }
    return copy;
  }

  database(name: string): Database {
    let database = this.databases.get(name);
    if (!database) {
      database = new Database(name);
      this.databases.set(name, database);
    }
    return database;
  }

  existingCollection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.collections.get(name);
  }

  /** The collection, created implicitly the way a write creates it on mongod. */
  collection(db: string, name: string): Collection {
    validateCollectionName(name);
    const database = this.database(db);
    let collection = database.collections.get(name);
    if (!collection) {
      this.guard?.beforeCatalogChange(db, name, "create");
      collection = new Collection(db, name, this.meter, this.guard);
      database.collections.set(name, collection);
      if (this.isSnapshot) this.created.add(collection.namespace);
      this.guard?.afterCatalogChange?.({ operation: "create", db, collection, description: { idIndex: describeIndex(ID_INDEX) } });
    }
    return collection;
  }

  /** Removes the collection and returns it, if it exists. */
  dropCollection(db: string, name: string): Collection | undefined {
    const collection = this.existingCollection(db, name);
    if (collection === undefined) return undefined;
    this.guard?.beforeCatalogChange(db, name, "drop");
    this.databases.get(db)?.collections.delete(name);
    this.guard?.afterCatalogChange?.({ operation: "drop", db, collection });
    return collection;
  }

  /** Every collection's drop is asked of the guard before any is dropped; each is then recorded dropped, and the database last, as mongod's oplog does. */
  dropDatabase(name: string): void {
    const collections = [...(this.databases.get(name)?.collections.values() ?? [])];
    for (const collection of collections) this.guard?.beforeCatalogChange(name, collection.name, "drop");
    this.databases.delete(name);
    for (const collection of collections) this.guard?.afterCatalogChange?.({ operation: "drop", db: name, collection });
    this.guard?.afterCatalogChange?.({ operation: "dropDatabase", db: name });
  }

  /**
   * Renames a collection within its database (dropping the target first when `dropTarget`), keeping its UUID,
   * records and indexes; the caller has checked that the source exists and the target may be replaced.
   */
  renameCollection(db: string, from: string, to: string): Collection {
    validateCollectionName(to);
    const source = this.existingCollection(db, from);
    if (source === undefined) throw new MongoCommandError(ErrorCode.NamespaceNotFound, `Source collection ${db}.${from} does not exist`);
    const target = this.existingCollection(db, to);
    this.guard?.beforeCatalogChange(db, from, "drop");
    if (target !== undefined) this.guard?.beforeCatalogChange(db, to, "drop");
    const database = this.database(db);
    database.collections.delete(from);
    database.collections.delete(to);
    const renamed = source.renamed(db, to, this.guard);
    database.collections.set(to, renamed);
    this.guard?.afterCatalogChange?.({
      operation: "rename",
      db,
      collection: source,
      to: { db, coll: to },
      description: { to: { db, coll: to }, ...(target === undefined ? {} : { dropTarget: target.uuid }) },
    });
    return renamed;
  }

  /** Databases holding at least one collection (mongod does not list empty ones). */
  listDatabases(): Database[] {
    return [...this.databases.values()].filter((database) => database.collections.size > 0);
  }
}
