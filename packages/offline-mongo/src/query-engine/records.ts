import BTree from "sorted-btree";
import type { Document } from "bson";

/**
 * A stored document. Never mutated after it is stored: updates store a new record under the same
 * id, so cursors holding an old one see a consistent snapshot and a failed update leaves no trace.
 */
export interface StoredDocument {
  readonly id: number;
  /** Exactly the types the client sent (Int32/Double/Long kept apart). */
  readonly doc: Document;
  /** The same document with plain JS numbers, for mingo. */
  readonly plain: Document;
  /** Its BSON size, summed into the collection's data size. */
  readonly bytes: number;
}

/**
 * Counts the records read or written in record stores, and the index keys inserted and deleted, shared by
 * the committed data and every transaction's snapshot of it: what tells work proportional to the documents
 * touched from work proportional to a collection (see `RunningOfflineServer.recordsVisited`), and what an
 * update costs its indexes (mongod's `keysInserted` and `keysDeleted`).
 */
export class StorageMeter {
  visited = 0;
  keysInserted = 0;
  keysDeleted = 0;
}

/**
 * A collection's records by record id, which is insertion order (mongod's natural order): a B-tree
 * whose `clone()` shares every node until either side writes, so a transaction's snapshot of a
 * collection costs nothing until it writes, and then about one path of the tree per record written.
 */
export class RecordStore {
  private tree = new BTree<number, StoredDocument>();

  constructor(readonly meter: StorageMeter) {}

  /** An independent copy as of now, sharing the tree's nodes until either side changes. */
  clone(): RecordStore {
    const copy = new RecordStore(this.meter);
    copy.tree = this.tree.clone();
    return copy;
  }

  get size(): number {
    return this.tree.size;
  }

  get(id: number): StoredDocument | undefined {
    this.meter.visited += 1;
    return this.tree.get(id);
  }

  /** Stores the record under its id: a new one goes last, a replaced one keeps its place. */
  set(record: StoredDocument): void {
    this.meter.visited += 1;
    this.tree.set(record.id, record);
  }

  delete(id: number): boolean {
    this.meter.visited += 1;
    return this.tree.delete(id);
  }

  /** A live walk in natural order: it sees records inserted after it started and skips deleted ones, as a mongod collection scan that yields. */
  *values(): Generator<StoredDocument, void, undefined> {
    let position: number | undefined = undefined;
    for (let pair = this.tree.nextHigherPair(position); pair !== undefined; pair = this.tree.nextHigherPair(position)) {
      position = pair[0];
      this.meter.visited += 1;
      yield pair[1];
    }
  }
}
