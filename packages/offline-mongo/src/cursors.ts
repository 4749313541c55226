import { BSON, Long, type Document } from "bson";
import { MongoCommandError } from "./errors";
import { MAX_BSON_SIZE } from "./storage";

export const DEFAULT_FIRST_BATCH = 101;
/** mongod's cursorTimeoutMillis default: idle cursors are reaped after ten minutes. */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

interface OpenCursor {
  readonly namespace: string;
  readonly results: readonly Document[];
  position: number;
  lastUsed: number;
}

/**
 * Takes up to `limit` documents from `position`, stopping before the reply would pass 16 MiB
 * (but always at least one document, so a cursor always makes progress).
 */
function takeBatch(results: readonly Document[], position: number, limit: number): Document[] {
  const batch: Document[] = [];
  let bytes = 0;
  for (let i = position; i < results.length && batch.length < limit; i++) {
    const doc = results[i] as Document;
    bytes += BSON.calculateObjectSize(doc);
    if (batch.length > 0 && bytes > MAX_BSON_SIZE) break;
    batch.push(doc);
  }
  return batch;
}

/**
 * Cursors over materialised result sets. The results are immutable records taken when the
 * command ran, so a cursor is a consistent snapshot whatever happens later.
 */
export class CursorRegistry {
  private readonly cursors = new Map<string, OpenCursor>();
  // Start at a random id so ids from one server run are not mistaken for another's.
  private nextId = Long.fromNumber(1 + Math.floor(Math.random() * 2 ** 31));

  /** The reply's `cursor` field for a fresh result set: `{id, ns, firstBatch}`. */
  open(namespace: string, results: readonly Document[], batchSize: number, singleBatch: boolean): Document {
    this.reapIdle();
    const firstBatch = takeBatch(results, 0, batchSize);
    let id = Long.ZERO;
    if (!singleBatch && firstBatch.length < results.length) {
      id = this.nextId;
      this.nextId = this.nextId.add(1);
      this.cursors.set(id.toString(), { namespace, results, position: firstBatch.length, lastUsed: Date.now() });
    }
    return { id, ns: namespace, firstBatch };
  }

  getMore(id: Long, namespace: string, batchSize: number): Document {
    const cursor = this.cursors.get(id.toString());
    if (!cursor) throw new MongoCommandError(43, `cursor id ${id.toString()} not found`);
    if (cursor.namespace !== namespace) {
      throw new MongoCommandError(13, `Requested getMore on namespace '${namespace}', but cursor belongs to a different namespace ${cursor.namespace}`);
    }
    const nextBatch = takeBatch(cursor.results, cursor.position, batchSize);
    cursor.position += nextBatch.length;
    cursor.lastUsed = Date.now();
    const exhausted = cursor.position >= cursor.results.length;
    if (exhausted) this.cursors.delete(id.toString());
    return { id: exhausted ? Long.ZERO : id, ns: namespace, nextBatch };
  }

  /** Removes the cursor if it exists; true when it did. */
  kill(id: Long): boolean {
    return this.cursors.delete(id.toString());
  }

  private reapIdle(): void {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const [id, cursor] of this.cursors) if (cursor.lastUsed < cutoff) this.cursors.delete(id);
  }
}
