import { Int32, Timestamp, type Document } from "bson";
import { historyLost, type ChangeEntry, type ChangeLog, type HistoryPoint } from "./change-log";
import { describeUpdate, eventHead, pointOf, resumeToken, transactionFields } from "./events";
import type { TailingSource } from "../query-engine/cursors";
import { ErrorCode, LocationCode, MongoCommandError, notSupported, unsupportedOption } from "../errors";
import { Aggregator } from "../language/mingo";
import { isMongodStage } from "../language/pipeline-stages";
import { mingoOptions, rejectScripts, translateMingoErrors } from "../language/query";
import type { Storage } from "../query-engine/storage";
import { isDocument, isNumeric, retype, toNumber, toPlain } from "../values/values";

/** What a stream watches: one collection, one database's collections, or every database (`allChangesForCluster`). */
export type StreamScope =
  | { readonly kind: "collection"; readonly db: string; readonly coll: string }
  | { readonly kind: "database"; readonly db: string }
  | { readonly kind: "cluster" };

const FULL_DOCUMENT = ["default", "updateLookup", "whenAvailable", "required"] as const;
const BEFORE_CHANGE = ["off", "whenAvailable", "required"] as const;

/** The `$changeStream` stage's options, as mongod 7.0 parses them. */
export interface StreamOptions {
  readonly fullDocument: (typeof FULL_DOCUMENT)[number];
  readonly fullDocumentBeforeChange: (typeof BEFORE_CHANGE)[number];
  readonly resumeAfter?: HistoryPoint;
  readonly startAfter?: HistoryPoint;
  readonly startAtOperationTime?: Timestamp;
  readonly allChangesForCluster: boolean;
  readonly showExpandedEvents: boolean;
}

const STAGE_FIELDS = new Set([
  // Migrations happen only between shards: on a replica set the option changes nothing.
  "showMigrationEvents",
  "fullDocument",
  "fullDocumentBeforeChange",
  "resumeAfter",
  "startAfter",
  "startAtOperationTime",
  "allChangesForCluster",
  "showExpandedEvents",
]);

/** Stages mongod lets follow `$changeStream` (it refuses the rest: they could hold events back or reorder them). */
const FOLLOWING_STAGES = new Set(["$match", "$project", "$addFields", "$set", "$unset", "$replaceRoot", "$replaceWith", "$redact"]);

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== "string")
    throw new MongoCommandError(ErrorCode.TypeMismatch, `BSON field '$changeStream.${field}' is the wrong type, expected type 'string'`);
  if (!(allowed as readonly string[]).includes(value))
    throw new MongoCommandError(ErrorCode.BadValue, `'${value}' is not a valid value for field '$changeStream.${field}'`);
  return value as T;
}

function flag(field: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean")
    throw new MongoCommandError(ErrorCode.TypeMismatch, `BSON field '$changeStream.${field}' is the wrong type, expected type 'bool'`);
  return value;
}

/** Options mongod 7.0 has that change what a stream shows, which the stand-in does not implement: refused by name. */
const UNSUPPORTED_FIELDS = new Set(["showSystemEvents", "showRawUpdateDescription", "allowToRunOnConfigDB", "allowToRunOnSystemNS"]);

/** Reads the `$changeStream` stage's options, with mongod's errors for unknown fields and conflicting start points. */
export function parseStreamOptions(stage: unknown): StreamOptions {
  if (!isDocument(stage))
    throw new MongoCommandError(LocationCode.ChangeStreamStageNotDocument, "$changeStream stage expects a document as argument");
  for (const field of Object.keys(stage)) {
    if (UNSUPPORTED_FIELDS.has(field)) throw unsupportedOption("$changeStream", field);
    if (!STAGE_FIELDS.has(field))
      throw new MongoCommandError(LocationCode.UnknownField, `BSON field '$changeStream.${field}' is an unknown field.`);
  }
  const start = stage["startAtOperationTime"];
  if (start !== undefined && !(start instanceof Timestamp))
    throw new MongoCommandError(
      ErrorCode.TypeMismatch,
      "BSON field '$changeStream.startAtOperationTime' is the wrong type, expected type 'timestamp'",
    );
  if (stage["resumeAfter"] !== undefined && stage["startAfter"] !== undefined)
    throw new MongoCommandError(LocationCode.BothResumeOptions, "Do not specify both 'startAfter' and 'resumeAfter' as resume options");
  if (start !== undefined && (stage["resumeAfter"] !== undefined || stage["startAfter"] !== undefined))
    throw new MongoCommandError(
      LocationCode.MoreThanOneResumeOption,
      "Only one type of resume option is allowed, but multiple were found.",
    );
  return {
    fullDocument: oneOf("fullDocument", stage["fullDocument"], FULL_DOCUMENT, "default"),
    fullDocumentBeforeChange: oneOf("fullDocumentBeforeChange", stage["fullDocumentBeforeChange"], BEFORE_CHANGE, "off"),
    ...(stage["resumeAfter"] === undefined ? {} : { resumeAfter: pointOf(stage["resumeAfter"]) }),
    ...(stage["startAfter"] === undefined ? {} : { startAfter: pointOf(stage["startAfter"]) }),
    ...(start === undefined ? {} : { startAtOperationTime: start }),
    allChangesForCluster: flag("allChangesForCluster", stage["allChangesForCluster"]),
    showExpandedEvents: flag("showExpandedEvents", stage["showExpandedEvents"]),
  };
}

/** The stages after `$changeStream`, refused where mongod refuses them. */
export function checkFollowingStages(stages: readonly Document[]): Document[] {
  for (const stage of stages) {
    const name = Object.keys(stage)[0] ?? "";
    if (name === "$changeStream")
      throw new MongoCommandError(LocationCode.ChangeStreamNotFirstStage, "$changeStream is only valid as the first stage in a pipeline");
    if (name === "$changeStreamSplitLargeEvent") throw notSupported("the $changeStreamSplitLargeEvent aggregation stage");
    if (!isMongodStage(name))
      throw new MongoCommandError(LocationCode.UnrecognizedPipelineStage, `Unrecognized pipeline stage name: '${name}'`);
    if (!FOLLOWING_STAGES.has(name))
      throw new MongoCommandError(ErrorCode.IllegalOperation, `${name} is not permitted in a $changeStream pipeline`);
  }
  rejectScripts(stages);
  return [...stages];
}

/** The scope a `$changeStream` aggregate watches, from the command's target and options. */
export function scopeOf(db: string, target: unknown, options: StreamOptions): StreamScope {
  const wholeDatabase = isNumeric(target) && toNumber(target) === 1;
  if (options.allChangesForCluster) {
    if (db !== "admin" || !wholeDatabase)
      throw new MongoCommandError(
        ErrorCode.InvalidOptions,
        "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name",
      );
    return { kind: "cluster" };
  }
  if (db === "admin" || db === "config" || db === "local")
    throw new MongoCommandError(ErrorCode.InvalidNamespace, `$changeStream may not be opened on the internal ${db} database`);
  if (wholeDatabase) return { kind: "database", db };
  if (typeof target !== "string") throw new MongoCommandError(ErrorCode.InvalidNamespace, "aggregate requires a collection name or 1");
  if (target.startsWith("system."))
    throw new MongoCommandError(ErrorCode.InvalidNamespace, `$changeStream may not be opened on the internal ${db}.${target} collection`);
  return { kind: "collection", db, coll: target };
}

const INTERNAL_DATABASES = new Set(["admin", "config", "local"]);

function inScope(scope: StreamScope, entry: ChangeEntry): boolean {
  if (entry.coll?.startsWith("system.") === true) return false;
  if (scope.kind === "cluster") return !INTERNAL_DATABASES.has(entry.db);
  if (entry.db !== scope.db) return false;
  return scope.kind === "database" || entry.coll === scope.coll;
}

/** Catalog changes only streams opened with `showExpandedEvents` see. */
const EXPANDED_OPERATIONS = new Set(["create", "createIndexes", "dropIndexes", "modify"]);

/** Does this entry end the stream (after its own event), as mongod invalidates a collection's stream when it goes, a database's when that goes? */
function invalidates(scope: StreamScope, entry: ChangeEntry): boolean {
  if (scope.kind === "collection") return entry.operation === "drop" || entry.operation === "rename";
  return scope.kind === "database" && entry.operation === "dropDatabase";
}

/**
 * A change stream's cursor: reads the history from its position as batches are asked for, builds each entry's
 * event for its scope and options, runs it through the stages that follow `$changeStream`, and says where
 * the batch ended (`postBatchResumeToken`). It never runs dry: an empty batch waits for the next write.
 */
export class ChangeStreamSource implements TailingSource {
  private position: number;
  /** The point the last batch reached: the last event returned, or a high-water mark past every entry scanned. */
  private reached: Document;
  private pending: Document[] = [];
  /** Set once the invalidate event is queued: the cursor closes after the batch that returns it. */
  closed = false;
  private readonly follow: Aggregator | undefined;
  private readonly onlyMatches: boolean;

  constructor(
    private readonly history: ChangeLog,
    private readonly live: Storage,
    private readonly scope: StreamScope,
    private readonly options: StreamOptions,
    stages: readonly Document[],
  ) {
    this.position = this.startPosition();
    this.reached = this.highWaterMark();
    this.follow =
      stages.length === 0
        ? undefined
        : new Aggregator(
            stages.map((stage) => toPlain(stage) as Document),
            mingoOptions(),
          );
    this.onlyMatches = stages.every((stage) => "$match" in stage);
  }

  private startPosition(): number {
    const { resumeAfter, startAfter, startAtOperationTime } = this.options;
    if (resumeAfter?.fromInvalidate === true)
      throw new MongoCommandError(
        ErrorCode.InvalidResumeToken,
        "Starting a change stream with 'resumeAfter' from an invalidate is not supported: use 'startAfter' instead",
      );
    const point = resumeAfter ?? startAfter;
    if (point !== undefined) return this.history.positionAfter(point, false);
    if (startAtOperationTime !== undefined)
      return this.history.positionAfter({ ts: startAtOperationTime, index: 0, highWaterMark: false, fromInvalidate: false }, true);
    return this.history.end;
  }

  private highWaterMark(): Document {
    return resumeToken({ ts: this.history.now(), index: 0, highWaterMark: true, fromInvalidate: false });
  }

  /** mongod's `postBatchResumeToken`: where a stream resumed from now would pick up. */
  postBatchResumeToken(): Document {
    return this.reached;
  }

  next(): Document | undefined {
    for (;;) {
      const queued = this.pending.shift();
      if (queued !== undefined) {
        this.reached = queued["_id"] as Document;
        return queued;
      }
      if (this.closed) return undefined;
      if (this.position < this.history.start) throw historyLost();
      const entry = this.history.at(this.position);
      if (entry === undefined) {
        this.reached = this.highWaterMark();
        return undefined;
      }
      this.position++;
      if (!inScope(this.scope, entry)) continue;
      if (EXPANDED_OPERATIONS.has(entry.operation) && !this.options.showExpandedEvents) continue;
      this.pending.push(...this.eventsOf(entry).flatMap((event) => this.followed(event)));
      if (invalidates(this.scope, entry)) {
        this.pending.push(eventHead(entry, "invalidate", true));
        this.closed = true;
      }
    }
  }

  /** The event through the stages that follow `$changeStream`: none, or the event reshaped; 280 if they changed its resume token. */
  private followed(event: Document): Document[] {
    if (this.follow === undefined) return [event];
    const follow = this.follow;
    const [result] = translateMingoErrors(() => follow.run([toPlain(event) as Document]));
    if (result === undefined) return [];
    if (this.onlyMatches) return [event];
    const shaped = retype(result, event) as Document;
    if (JSON.stringify(shaped["_id"]) !== JSON.stringify(event["_id"]))
      throw new MongoCommandError(
        ErrorCode.ChangeStreamFatalError,
        "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.",
        { errorLabels: ["NonResumableChangeStreamError"] },
      );
    return [shaped];
  }

  /** The event an entry makes for this stream, with mongod 7.0's fields for its kind (and options). */
  private eventsOf(entry: ChangeEntry): Document[] {
    const head = eventHead(entry, entry.operation);
    const ns = entry.coll === undefined ? { db: entry.db } : { db: entry.db, coll: entry.coll };
    const expanded = this.options.showExpandedEvents;
    const uuid = expanded && entry.uuid !== undefined ? { collectionUUID: entry.uuid } : {};
    const key = { documentKey: entry.key };
    const description = expanded && entry.description !== undefined ? { operationDescription: entry.description } : {};
    switch (entry.operation) {
      case "insert":
        return [{ ...head, ...uuid, fullDocument: entry.after, ns, ...key, ...transactionFields(entry) }];
      case "replace":
        return [{ ...head, ...uuid, fullDocument: entry.after, ns, ...key, ...this.beforeChange(entry), ...transactionFields(entry) }];
      case "update":
        return [
          {
            ...head,
            ...uuid,
            ...this.afterChange(entry),
            ns,
            ...key,
            updateDescription: this.updateDescription(entry),
            ...this.beforeChange(entry),
            ...transactionFields(entry),
          },
        ];
      case "delete":
        return [{ ...head, ...uuid, ns, ...key, ...this.beforeChange(entry), ...transactionFields(entry) }];
      case "rename":
        return [{ ...head, ...uuid, ns, to: entry.to, ...description }];
      case "drop":
      case "dropDatabase":
        return [{ ...head, ...uuid, ns }];
      case "create":
      case "createIndexes":
      case "dropIndexes":
      case "modify":
        return [{ ...head, ...uuid, ns, ...description }];
    }
  }

  private updateDescription(entry: ChangeEntry): Document {
    const { updatedFields, removedFields, truncatedArrays, ambiguous } = describeUpdate(entry.before ?? {}, entry.after ?? {});
    const described: Document = {
      updatedFields,
      removedFields,
      truncatedArrays: truncatedArrays.map(({ field, newSize }) => ({ field, newSize: new Int32(newSize) })),
    };
    if (!this.options.showExpandedEvents) return described;
    const paths = Object.fromEntries(
      [...ambiguous].map(([name, path]) => [name, path.map((segment) => (typeof segment === "number" ? new Int32(segment) : segment))]),
    );
    return { ...described, disambiguatedPaths: paths };
  }

  /** An update's `fullDocument`: the current document (`updateLookup`), or the post-image the collection kept. */
  private afterChange(entry: ChangeEntry): Document {
    switch (this.options.fullDocument) {
      case "default":
        return {};
      case "updateLookup":
        return { fullDocument: this.live.existingCollection(entry.db, entry.coll ?? "")?.findById(entry.key?.["_id"])?.doc ?? null };
      case "whenAvailable":
        return { fullDocument: entry.images ? (entry.after ?? null) : null };
      case "required":
        if (!entry.images) throw imageMissing("post-image", "fullDocument");
        return { fullDocument: entry.after ?? null };
    }
  }

  /** `fullDocumentBeforeChange`: the pre-image the collection kept, where it keeps them. */
  private beforeChange(entry: ChangeEntry): Document {
    switch (this.options.fullDocumentBeforeChange) {
      case "off":
        return {};
      case "whenAvailable":
        return { fullDocumentBeforeChange: entry.images ? (entry.before ?? null) : null };
      case "required":
        if (!entry.images || entry.before === undefined) throw imageMissing("pre-image", "fullDocumentBeforeChange");
        return { fullDocumentBeforeChange: entry.before };
    }
  }
}

function imageMissing(image: string, option: string): MongoCommandError {
  return new MongoCommandError(
    ErrorCode.NoMatchingDocument,
    `Change stream was configured to require a ${image} for all update, delete and replace events, but the ${image} was not found (${option}: 'required').`,
  );
}
