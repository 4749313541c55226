import type { Document } from "bson";
import { arraySource } from "../cursors";
import { Query } from "../mingo";
import { mingoOptions, translateMingoErrors } from "../query";
import { MongoCommandError } from "../errors";
import { validateCollectionName } from "../storage";
import { documentArg, isTruthy, toPlain } from "../values";
import { collectionName, refuseFlags, refuseOptions } from "./common";
import type { CommandDefinition } from "./context";

function matching(entries: Document[], filter: unknown, command: string): Document[] {
  if (filter === undefined) return entries;
  const query = translateMingoErrors(() => new Query(toPlain(documentArg(command, "filter", filter)) as Document, mingoOptions()));
  return entries.filter((entry) => query.test(toPlain(entry) as Document));
}

/** Options of `create` that would make a collection other than a plain one, which the stand-in does not keep. */
const UNSUPPORTED_CREATE_OPTIONS = [
  "size",
  "max",
  "validator",
  "validationLevel",
  "validationAction",
  "indexOptionDefaults",
  "viewOn",
  "pipeline",
  "collation",
  "storageEngine",
  "timeseries",
  "expireAfterSeconds",
  "clusteredIndex",
  "changeStreamPreAndPostImages",
  "idIndex",
];

const create: CommandDefinition = {
  names: ["create"],
  fields: ["capped", ...UNSUPPORTED_CREATE_OPTIONS],
  run(body, context) {
    const name = collectionName(body, "create");
    refuseFlags(body, "create", ["capped"]);
    refuseOptions(body, "create", UNSUPPORTED_CREATE_OPTIONS);
    validateCollectionName(name);
    // Since 7.0 mongod answers ok to a create whose options match the existing collection's (SERVER-60064);
    // every collection here has the default options, since any other is refused above. Not in a transaction.
    if (context.inTransaction && context.storage.existingCollection(context.db, name) !== undefined)
      throw new MongoCommandError(48, `Collection already exists. NS: ${context.db}.${name}`);
    context.storage.collection(context.db, name);
    return { ok: 1 };
  },
};

const drop: CommandDefinition = {
  names: ["drop"],
  fields: [],
  run(body, context) {
    const name = collectionName(body, "drop");
    const collection = context.storage.dropCollection(context.db, name);
    // Since 7.0 mongod answers ok for a collection that does not exist.
    if (!collection) return { ok: 1 };
    context.cursors.killReaders((namespace) => namespace === collection.namespace);
    return { nIndexesWas: collection.indexes.length, ns: collection.namespace, ok: 1 };
  },
};

const dropDatabase: CommandDefinition = {
  names: ["dropDatabase"],
  fields: [],
  run(_body, context) {
    context.storage.dropDatabase(context.db);
    context.cursors.killReaders((namespace) => namespace.startsWith(`${context.db}.`));
    return { ok: 1 };
  },
};

const listCollections: CommandDefinition = {
  names: ["listCollections"],
  fields: ["filter", "nameOnly", "authorizedCollections", "cursor"],
  run(body, context) {
    const nameOnly = isTruthy(body["nameOnly"]);
    const entries = [...context.storage.database(context.db).collections.values()].map((collection) =>
      nameOnly
        ? { name: collection.name, type: "collection" }
        : {
            name: collection.name,
            type: "collection",
            options: {},
            info: { readOnly: false, uuid: collection.uuid },
            idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
          },
    );
    const cursor = isTruthy(body["cursor"]) ? documentArg("listCollections", "cursor", body["cursor"]) : {};
    const batchSize = typeof cursor["batchSize"] === "number" ? cursor["batchSize"] : Number.MAX_SAFE_INTEGER;
    const results = matching(entries, body["filter"], "listCollections");
    return { cursor: context.cursors.open(`${context.db}.$cmd.listCollections`, arraySource(results), batchSize, false), ok: 1 };
  },
};

const listDatabases: CommandDefinition = {
  names: ["listDatabases"],
  fields: ["filter", "nameOnly", "authorizedDatabases"],
  run(body, context) {
    const nameOnly = isTruthy(body["nameOnly"]);
    const entries = context.storage.listDatabases().map((database) => {
      const sizeOnDisk = [...database.collections.values()].reduce((total, collection) => total + collection.dataSize, 0);
      return nameOnly ? { name: database.name } : { name: database.name, sizeOnDisk, empty: sizeOnDisk === 0 };
    });
    const databases = matching(entries, body["filter"], "listDatabases");
    if (nameOnly) return { databases, ok: 1 };
    const totalSize = databases.reduce((total, entry) => total + Number(entry["sizeOnDisk"] ?? 0), 0);
    return { databases, totalSize, totalSizeMb: Math.floor(totalSize / (1024 * 1024)), ok: 1 };
  },
};

export const namespaceCommands: readonly CommandDefinition[] = [create, drop, dropDatabase, listCollections, listDatabases];
