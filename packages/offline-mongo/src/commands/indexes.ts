import type { Document } from "bson";
import { arraySource } from "../query-engine/cursors";
import { ErrorCode, MongoCommandError } from "../errors";
import { describeIndex, parseIndexSpec, sameKeyPattern, type IndexSpec } from "../query-engine/indexes";
import type { Collection } from "../query-engine/storage";
import { formatDocument, isDocument } from "../values/values";
import { collectionName, documentList, namespace } from "./common";
import type { CommandContext, CommandDefinition } from "./context";

function existingCollection(context: CommandContext, name: string): Collection {
  const collection = context.storage.existingCollection(context.db, name);
  if (!collection) throw new MongoCommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${namespace(context, name)}`);
  return collection;
}

/** True when an identical index exists; throws mongod's conflict error when a different one clashes. */
function alreadyExists(collection: Collection, spec: IndexSpec): boolean {
  const requested = formatDocument(describeIndex(spec));
  for (const { spec: existing } of collection.indexes) {
    const sameKey = sameKeyPattern(existing.key, spec.key);
    const sameOptions =
      existing.unique === spec.unique && existing.sparse === spec.sparse && existing.expireAfterSeconds === spec.expireAfterSeconds;
    if (existing.name === spec.name) {
      if (sameKey && (sameOptions || spec.name === "_id_")) return true;
      const code = sameKey ? ErrorCode.IndexOptionsConflict : ErrorCode.IndexKeySpecsConflict;
      const prefix = sameKey
        ? "An equivalent index already exists with the same name but different options."
        : "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation.";
      throw new MongoCommandError(
        code,
        `${prefix} Requested index: ${requested}, existing index: ${formatDocument(describeIndex(existing))}`,
      );
    }
    if (sameKey && sameOptions)
      throw new MongoCommandError(ErrorCode.IndexOptionsConflict, `Index already exists with a different name: ${existing.name}`);
  }
  return false;
}

/**
 * mongod (4.4+) builds indexes inside a transaction only on a collection the transaction creates, while it
 * is empty; on any other collection it only answers for indexes that already exist.
 */
function checkBuildInTransaction(context: CommandContext, name: string, specs: readonly IndexSpec[]): void {
  const existing = context.storage.existingCollection(context.db, name);
  if (existing === undefined) return;
  const ns = namespace(context, name);
  if (!context.storage.created.has(ns)) {
    if (specs.every((spec) => alreadyExists(existing, spec))) return;
    throw new MongoCommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      `Cannot create new indexes on existing collection ${ns} in a multi-document transaction.`,
    );
  }
  if (existing.size > 0)
    throw new MongoCommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      `Cannot create new indexes on non-empty collection ${ns} in a multi-document transaction.`,
    );
}

const createIndexes: CommandDefinition = {
  names: ["createIndexes"],
  fields: ["indexes", "commitQuorum"],
  run(body, context) {
    const name = collectionName(body, "createIndexes");
    const specs = documentList("createIndexes", "indexes", body["indexes"]).map(parseIndexSpec);
    if (context.inTransaction) checkBuildInTransaction(context, name, specs);
    // In a transaction mongod counts a collection the transaction created as created by the build.
    const createdCollectionAutomatically =
      context.storage.existingCollection(context.db, name) === undefined || context.storage.created.has(namespace(context, name));
    const collection = context.storage.collection(context.db, name);
    const before = collection.indexes.length;
    for (const spec of specs) if (!alreadyExists(collection, spec)) collection.addIndex(spec);
    const after = collection.indexes.length;
    return {
      numIndexesBefore: before,
      numIndexesAfter: after,
      ...(after === before ? { note: "all indexes already exist" } : {}),
      createdCollectionAutomatically,
      ok: 1,
    };
  },
};

const listIndexes: CommandDefinition = {
  names: ["listIndexes"],
  fields: ["cursor"],
  run(body, context) {
    const name = collectionName(body, "listIndexes");
    const indexes = existingCollection(context, name).describeIndexes();
    return {
      cursor: context.cursors.open(`${context.db}.$cmd.listIndexes.${name}`, arraySource(indexes), Number.MAX_SAFE_INTEGER, false),
      ok: 1,
    };
  },
};

const dropIndexes: CommandDefinition = {
  names: ["dropIndexes", "deleteIndexes"],
  fields: ["index"],
  run(body, context) {
    const command = Object.keys(body)[0] ?? "dropIndexes";
    const collection = existingCollection(context, collectionName(body, command));
    const nIndexesWas = collection.indexes.length;
    const target = body["index"];
    if (target === "*") {
      collection.indexes.slice(1).forEach((index) => collection.dropIndex(index.spec.name));
      return { nIndexesWas, msg: "non-_id indexes dropped for collection", ok: 1 };
    }
    const names = Array.isArray(target) ? target : [target];
    const resolved = names.map((wanted) => {
      const index = collection.indexes.find((candidate) =>
        typeof wanted === "string" ? candidate.spec.name === wanted : isDocument(wanted) && sameKeyPattern(candidate.spec.key, wanted),
      );
      if (!index) {
        const described =
          typeof wanted === "string"
            ? `index not found with name [${wanted}]`
            : `can't find index with key: ${formatDocument(wanted as Document)}`;
        throw new MongoCommandError(ErrorCode.IndexNotFound, described);
      }
      if (index.spec.name === "_id_") throw new MongoCommandError(ErrorCode.InvalidOptions, "cannot drop _id index");
      return index.spec.name;
    });
    resolved.forEach((indexName) => collection.dropIndex(indexName));
    return { nIndexesWas, ok: 1 };
  },
};

export const indexCommands: readonly CommandDefinition[] = [createIndexes, listIndexes, dropIndexes];
