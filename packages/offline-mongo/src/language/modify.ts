import { BSON, type Document } from "bson";
import type { Collection, StoredDocument } from "../query-engine/storage";
import { applyUpdate, upsertSeed, type UpdateSpec } from "./updates";

export interface ModifyOptions {
  readonly filter: Document;
  readonly arrayFilters: readonly Document[];
}

/**
 * Updates one stored record: computes the new document on a copy, then commits it (indexes
 * checked) or throws with nothing changed. `modified` is false when the bytes are identical, which
 * is how mongod decides nModified.
 */
export function updateRecord(
  collection: Collection,
  record: StoredDocument,
  spec: UpdateSpec,
  options: ModifyOptions,
): { record: StoredDocument; modified: boolean } {
  const doc = applyUpdate(spec, record.doc, { ...options, inserting: false, plain: record.plain });
  // A size that differs tells bytes that differ without serializing both documents (a push always grows one).
  const size = BSON.calculateObjectSize(doc);
  if (size === record.bytes && Buffer.compare(BSON.serialize(doc), BSON.serialize(record.doc)) === 0) return { record, modified: false };
  return { record: collection.replace(record, doc, spec.kind === "replacement" ? "replace" : "update", size), modified: true };
}

/** Inserts the document an upsert creates: the filter's equalities, then the update (with $setOnInsert). */
export function upsertRecord(collection: Collection, spec: UpdateSpec, options: ModifyOptions): StoredDocument {
  return collection.insert(applyUpdate(spec, upsertSeed(options.filter, spec.kind === "replacement"), { ...options, inserting: true }));
}
