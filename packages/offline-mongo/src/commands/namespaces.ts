import type { Document } from "bson";
import { arraySource } from "../query-engine/cursors";
import { Query } from "../language/mingo";
import { mingoOptions, translateMingoErrors } from "../language/query";
import { ErrorCode, LocationCode, MongoCommandError, notSupported } from "../errors";
import { validateCollectionName } from "../query-engine/storage";
import { documentArg, isTruthy, stringArg, toPlain } from "../values/values";
import { collectionName, refuseFlags, refuseOptions } from "./common";
import type { CommandDefinition } from "./context";
import { requireAdmin } from "./parameters";

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
  "idIndex",
];

/** `changeStreamPreAndPostImages: {enabled: <bool>}`, as mongod parses it; undefined when absent. */
function imagesOption(command: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  const option = documentArg(command, "changeStreamPreAndPostImages", value);
  const enabled = option["enabled"];
  if (typeof enabled !== "boolean")
    throw new MongoCommandError(
      LocationCode.MissingRequiredField,
      `BSON field '${command}.changeStreamPreAndPostImages.enabled' is missing but a required field`,
    );
  return enabled;
}

const create: CommandDefinition = {
  names: ["create"],
  fields: ["capped", "changeStreamPreAndPostImages", ...UNSUPPORTED_CREATE_OPTIONS],
  run(body, context) {
    const name = collectionName(body, "create");
    refuseFlags(body, "create", ["capped"]);
    refuseOptions(body, "create", UNSUPPORTED_CREATE_OPTIONS);
    validateCollectionName(name);
    const keepImages = imagesOption("create", body["changeStreamPreAndPostImages"]) ?? false;
    const existing = context.storage.existingCollection(context.db, name);
    // Since 7.0 mongod answers ok to a create whose options match the existing collection's (SERVER-60064). Not in a transaction.
    if (existing !== undefined && (context.inTransaction || existing.keepsImages !== keepImages))
      throw new MongoCommandError(ErrorCode.NamespaceExists, `Collection already exists. NS: ${context.db}.${name}`);
    context.storage.collection(context.db, name).keepsImages = keepImages;
    return { ok: 1 };
  },
};

/** Options of `collMod` the stand-in does not keep: refused by name. */
const UNSUPPORTED_COLLMOD_OPTIONS = [
  "validator",
  "validationLevel",
  "validationAction",
  "index",
  "viewOn",
  "pipeline",
  "expireAfterSeconds",
  "timeseries",
  "cappedSize",
  "cappedMax",
  "dryRun",
];

const collMod: CommandDefinition = {
  names: ["collMod"],
  fields: ["changeStreamPreAndPostImages", ...UNSUPPORTED_COLLMOD_OPTIONS],
  run(body, context) {
    const name = collectionName(body, "collMod");
    refuseOptions(body, "collMod", UNSUPPORTED_COLLMOD_OPTIONS);
    const keepImages = imagesOption("collMod", body["changeStreamPreAndPostImages"]);
    const collection = context.storage.existingCollection(context.db, name);
    if (collection === undefined) throw new MongoCommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${context.db}.${name}`);
    collection.modify(keepImages);
    return { ok: 1 };
  },
};

/** `db.coll` into its database and collection names (collection names may hold dots, database names may not). */
function splitNamespace(command: string, field: string, value: unknown): { db: string; coll: string } {
  const namespace = stringArg(command, field, value);
  const dot = namespace.indexOf(".");
  if (dot <= 0 || dot === namespace.length - 1)
    throw new MongoCommandError(ErrorCode.InvalidNamespace, `Invalid namespace specified '${namespace}'`);
  return { db: namespace.slice(0, dot), coll: namespace.slice(dot + 1) };
}

/** `renameCollection` within a database, as mongod runs it (on `admin`); across databases it is refused. */
const renameCollection: CommandDefinition = {
  names: ["renameCollection"],
  fields: ["to", "dropTarget", "stayTemp"],
  run(body, context) {
    requireAdmin("renameCollection", context);
    const source = splitNamespace("renameCollection", "renameCollection", body["renameCollection"]);
    const target = splitNamespace("renameCollection", "to", body["to"]);
    if (source.db !== target.db) throw notSupported("renameCollection across databases");
    if (source.coll === target.coll) throw new MongoCommandError(ErrorCode.IllegalOperation, "Can't rename a collection to itself");
    if (context.storage.existingCollection(source.db, source.coll) === undefined)
      throw new MongoCommandError(ErrorCode.NamespaceNotFound, `Source collection ${source.db}.${source.coll} does not exist`);
    if (context.storage.existingCollection(target.db, target.coll) !== undefined && !isTruthy(body["dropTarget"]))
      throw new MongoCommandError(ErrorCode.NamespaceExists, "target namespace exists");
    context.storage.renameCollection(source.db, source.coll, target.coll);
    const moved = [`${source.db}.${source.coll}`, `${target.db}.${target.coll}`];
    context.cursors.killReaders((namespace) => moved.includes(namespace));
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
            options: collection.keepsImages ? { changeStreamPreAndPostImages: { enabled: true } } : {},
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

export const namespaceCommands: readonly CommandDefinition[] = [
  create,
  collMod,
  renameCollection,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
];
