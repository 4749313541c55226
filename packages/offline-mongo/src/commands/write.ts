import type { Document } from "bson";
import { ErrorCode, MongoCommandError } from "../errors";
import { updateRecord, upsertRecord } from "../language/modify";
import { compileProjection } from "../language/projection";
import { parseUpdate } from "../language/updates";
import { documentArg, isNumeric, isTruthy, toNumber } from "../values/values";
import { collectionName, documentList, isRetryableWrite, refuseOptions, runWriteBatch, withWriteErrors } from "./common";
import type { CommandDefinition } from "./context";
import { select } from "./read";

/** Write concern and document validation bypass are trivially satisfied by a single in-memory node. */
const WRITE_FIELDS = ["ordered", "bypassDocumentValidation", "let"];

const insert: CommandDefinition = {
  names: ["insert"],
  fields: ["documents", ...WRITE_FIELDS],
  run(body, context) {
    const name = collectionName(body, "insert");
    refuseOptions(body, "insert", ["let"]);
    const documents = documentList("insert", "documents", body["documents"]);
    const collection = context.storage.collection(context.db, name);
    let n = 0;
    const writeErrors = runWriteBatch(documents, body["ordered"] !== false || context.inTransaction, (doc) => {
      collection.insert(doc);
      n++;
    });
    return withWriteErrors({ n }, writeErrors);
  },
};

const remove: CommandDefinition = {
  names: ["delete"],
  fields: ["deletes", ...WRITE_FIELDS],
  run(body, context) {
    const name = collectionName(body, "delete");
    refuseOptions(body, "delete", ["let"]);
    const deletes = documentList("delete", "deletes", body["deletes"]);
    let n = 0;
    const writeErrors = runWriteBatch(deletes, body["ordered"] !== false || context.inTransaction, (statement) => {
      refuseOptions(statement, "delete", ["collation"]);
      const limit = isNumeric(statement["limit"]) ? toNumber(statement["limit"]) : NaN;
      if (limit !== 0 && limit !== 1)
        throw new MongoCommandError(
          ErrorCode.FailedToParse,
          `The limit field in delete objects must be 0 or 1. Got ${String(statement["limit"])}`,
        );
      // A retry could not tell which of many documents it already deleted: mongod retries single-document statements only.
      if (limit === 0 && isRetryableWrite(body))
        throw new MongoCommandError(ErrorCode.InvalidOptions, "Cannot use (or request) retryable writes with limit=0");
      const records = select(context, name, "delete", { filter: statement["q"], limit, hint: statement["hint"] });
      const collection = context.storage.existingCollection(context.db, name);
      records.forEach((record) => collection?.remove(record));
      n += records.length;
    });
    return withWriteErrors({ n }, writeErrors);
  },
};

const update: CommandDefinition = {
  names: ["update"],
  fields: ["updates", ...WRITE_FIELDS],
  run(body, context) {
    const name = collectionName(body, "update");
    refuseOptions(body, "update", ["let"]);
    const statements = documentList("update", "updates", body["updates"]);
    let n = 0;
    let nModified = 0;
    const upserted: Document[] = [];
    const writeErrors = runWriteBatch(statements, body["ordered"] !== false || context.inTransaction, (statement, index) => {
      refuseOptions(statement, "update", ["collation", "c", "sort"]);
      const multi = isTruthy(statement["multi"]);
      if (multi && isRetryableWrite(body))
        throw new MongoCommandError(ErrorCode.InvalidOptions, "Cannot use (or request) retryable writes with multi=true");
      const spec = parseUpdate(statement["u"], multi);
      const filter = documentArg("update", "q", statement["q"] ?? {});
      const options = { filter, arrayFilters: documentList("update", "arrayFilters", statement["arrayFilters"] ?? []) };
      // mongod creates an upsert's collection before planning it, so a hint naming a missing index fails even then.
      if (isTruthy(statement["upsert"])) context.storage.collection(context.db, name);
      const records = select(context, name, "update", { filter, limit: multi ? 0 : 1, hint: statement["hint"] });
      if (records.length === 0 && isTruthy(statement["upsert"])) {
        const record = upsertRecord(context.storage.collection(context.db, name), spec, options);
        upserted.push({ index, _id: record.doc["_id"] });
        n++;
        return;
      }
      // Only an upsert creates the collection: records were found in it, or there is nothing to update.
      const collection = context.storage.existingCollection(context.db, name);
      if (collection === undefined) return;
      for (const record of records) {
        n++;
        if (updateRecord(collection, record, spec, options).modified) nModified++;
      }
    });
    return withWriteErrors({ n, nModified, ...(upserted.length > 0 ? { upserted } : {}) }, writeErrors);
  },
};

/** mongod's parse-time checks of findAndModify options that make no sense with remove=true. */
function refuseWithRemove(body: Document): void {
  if (isTruthy(body["upsert"])) throw new MongoCommandError(ErrorCode.FailedToParse, "Cannot specify both upsert=true and remove=true");
  if (isTruthy(body["new"])) {
    throw new MongoCommandError(
      ErrorCode.FailedToParse,
      "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
    );
  }
  if (body["arrayFilters"] !== undefined)
    throw new MongoCommandError(ErrorCode.FailedToParse, "Cannot specify arrayFilters and remove=true");
}

const findAndModify: CommandDefinition = {
  names: ["findAndModify", "findandmodify"],
  fields: [
    "query",
    "sort",
    "remove",
    "update",
    "new",
    "fields",
    "upsert",
    "arrayFilters",
    "hint",
    "collation",
    "bypassDocumentValidation",
    "let",
  ],
  run(body, context) {
    const command = Object.keys(body)[0] ?? "findAndModify";
    const name = collectionName(body, command);
    refuseOptions(body, command, ["collation", "let"]);
    const removing = isTruthy(body["remove"]);
    if (removing && body["update"] !== undefined)
      throw new MongoCommandError(ErrorCode.FailedToParse, "Cannot specify both an update and remove=true");
    if (!removing && body["update"] === undefined)
      throw new MongoCommandError(ErrorCode.FailedToParse, "Either an update or remove=true must be specified");
    if (removing) refuseWithRemove(body);
    const projection = compileProjection(body["fields"] === undefined ? undefined : documentArg(command, "fields", body["fields"]));
    const project = (doc: Document | undefined): Document | null => (doc === undefined ? null : projection ? projection.apply(doc) : doc);
    const filter = documentArg(command, "query", body["query"] ?? {});
    const [record] = select(context, name, command, { filter, sort: body["sort"], limit: 1, hint: body["hint"] });
    if (removing) {
      if (record) context.storage.existingCollection(context.db, name)?.remove(record);
      return { lastErrorObject: { n: record ? 1 : 0 }, value: project(record?.doc), ok: 1 };
    }
    const spec = parseUpdate(body["update"], false);
    const options = { filter, arrayFilters: documentList(command, "arrayFilters", body["arrayFilters"] ?? []) };
    if (record === undefined) {
      if (!isTruthy(body["upsert"])) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
      const created = upsertRecord(context.storage.collection(context.db, name), spec, options);
      return {
        lastErrorObject: { n: 1, updatedExisting: false, upserted: created.doc["_id"] },
        value: isTruthy(body["new"]) ? project(created.doc) : null,
        ok: 1,
      };
    }
    const updated = updateRecord(context.storage.collection(context.db, name), record, spec, options).record;
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: project(isTruthy(body["new"]) ? updated.doc : record.doc), ok: 1 };
  },
};

export const writeCommands: readonly CommandDefinition[] = [insert, remove, update, findAndModify];
