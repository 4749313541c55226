import { MaxKey, MinKey, type Document } from "bson";
import type { FieldBounds, Interval } from "./bounds";
import { compareKeyValues, KeyBound, MAX_KEY, MIN_KEY, type IndexKey } from "./keys";
import type { Index } from "./indexes";
import { compareSortKeys, sortKeys, type SortSpec } from "../language/query";
import type { Collection, StoredDocument } from "./storage";
import { formatValue } from "../values/values";

/** One call of a stage's `work()`, as mongod's PlanStage: it produced a record, needs more time, or is done. */
export type WorkResult =
  { readonly state: "advanced"; readonly id: number; readonly record?: StoredDocument } | { readonly state: "needTime" | "eof" };

const NEED_TIME: WorkResult = { state: "needTime" };
const EOF: WorkResult = { state: "eof" };

/** An execution stage with mongod's name and its common statistics (works, advanced, needTime, isEOF). */
export abstract class Stage {
  abstract readonly name: string;
  works = 0;
  advanced = 0;
  needTime = 0;
  isEOF = false;

  work(): WorkResult {
    if (this.isEOF) return EOF;
    this.works++;
    const result = this.doWork();
    if (result.state === "advanced") this.advanced++;
    else if (result.state === "needTime") this.needTime++;
    else this.isEOF = true;
    return result;
  }

  protected abstract doWork(): WorkResult;
  abstract readonly children: readonly Stage[];
  /** The stage's fields in `queryPlanner.winningPlan`. */
  abstract describe(): Document;
  /** The stage's own fields in `executionStats.executionStages`. */
  statistics(): Document {
    return {};
  }
  keysExamined(): number {
    return 0;
  }
  docsExamined(): number {
    return 0;
  }
  hasStage(name: string): boolean {
    return this.name === name || this.children.some((child) => child.hasStage(name));
  }
}

/** A stage fed by one other stage, its only child in explain's tree. */
abstract class OneInputStage extends Stage {
  abstract readonly input: Stage;

  get children(): readonly Stage[] {
    return [this.input];
  }
}

/** Sums one figure over a plan tree, as mongod's totalKeysExamined and totalDocsExamined. */
export function total(stage: Stage, figure: (stage: Stage) => number): number {
  return figure(stage) + stage.children.reduce((sum, child) => sum + total(child, figure), 0);
}

function inputs(children: readonly Stage[], explain: (stage: Stage) => Document): Document {
  if (children.length === 0) return {};
  const [only] = children;
  return children.length === 1 && only !== undefined ? { inputStage: explain(only) } : { inputStages: children.map(explain) };
}

export function explainPlanner(stage: Stage): Document {
  return { stage: stage.name, ...stage.describe(), ...inputs(stage.children, explainPlanner) };
}

export function explainExecution(stage: Stage): Document {
  return {
    stage: stage.name,
    nReturned: stage.advanced,
    executionTimeMillisEstimate: 0,
    works: stage.works,
    advanced: stage.advanced,
    needTime: stage.needTime,
    needYield: 0,
    saveState: 0,
    restoreState: 0,
    isEOF: Number(stage.isEOF),
    ...stage.describe(),
    ...stage.statistics(),
    ...inputs(stage.children, explainExecution),
  };
}

/** Tests a plain document against the query's full filter. */
export type DocumentTest = (plain: Document) => boolean;

/** Walks the collection in natural (insertion) order; the record store's walk sees later inserts and skips deleted records. */
export class CollectionScan extends Stage {
  readonly name = "COLLSCAN";
  readonly children = [];
  private examined = 0;
  private readonly iterator: Iterator<StoredDocument>;

  constructor(
    collection: Collection,
    private readonly test: DocumentTest,
    private readonly filter: Document,
  ) {
    super();
    this.iterator = collection.scan();
  }

  protected doWork(): WorkResult {
    const next = this.iterator.next();
    if (next.done === true) return EOF;
    this.examined++;
    return this.test(next.value.plain) ? { state: "advanced", id: next.value.id, record: next.value } : NEED_TIME;
  }

  describe(): Document {
    return { ...(Object.keys(this.filter).length === 0 ? {} : { filter: this.filter }), direction: "forward" };
  }
  override statistics(): Document {
    return { docsExamined: this.examined };
  }
  override docsExamined(): number {
    return this.examined;
  }
}

/** What the bounds checker says of a key, as mongod's IndexBoundsChecker. */
type KeyCheck = { readonly verdict: "valid" | "done" } | { readonly verdict: "seek"; readonly to: IndexKey };

/**
 * Scans one index within bounds. A single interval (equality prefix, then at most one range, then
 * unbounded fields) stops at its end without counting the key past it, as mongod's end-position
 * scan; several intervals go through a bounds checker that counts every key it looks at and seeks
 * past gaps, as mongod's. The position is the last key seen, so writes between batches are safe.
 */
export class IndexScan extends Stage {
  readonly name: string = "IXSCAN";
  readonly children = [];
  private examined = 0;
  private position: IndexKey | undefined;
  private pendingSeek: IndexKey | undefined;
  private readonly scanBounds: ReadonlyArray<readonly Interval[]>;
  private readonly singleInterval: boolean;
  private readonly seen = new Set<number>();
  private dupsDropped = 0;
  private seeks = 0;

  constructor(
    readonly index: Index,
    readonly bounds: readonly FieldBounds[],
    readonly forward: boolean,
  ) {
    super();
    this.scanBounds = bounds.map((field, i) => (this.scanOrder(i) === 1 ? field : [...field].reverse().map(flip)));
    this.singleInterval = isSingleInterval(bounds);
    this.pendingSeek = bounds.some((field) => field.length === 0) ? undefined : this.startOf(0, []);
    if (this.pendingSeek === undefined) this.isEOF = true;
  }

  /** One field's intervals in the order the scan meets them. */
  protected scanIntervals(field: number): readonly Interval[] {
    return this.scanBounds[field] ?? [];
  }

  /** +1 when the scan meets this field's values in ascending order. */
  private scanOrder(field: number): number {
    return (this.index.directions[field] ?? 1) * (this.forward ? 1 : -1);
  }

  private compare(field: number, a: unknown, b: unknown): number {
    return compareKeyValues(a, b) * this.scanOrder(field);
  }

  /** The lowest key (in scan order) with this prefix and each later field at the start of its first interval. */
  private startOf(from: number, prefix: readonly unknown[]): IndexKey {
    const key = [...prefix];
    for (let i = from; i < this.scanBounds.length; i++) {
      const first = this.scanBounds[i]?.[0];
      if (first === undefined) break;
      key.push(first.low);
      if (!first.lowInclusive) return this.pad(key, "last");
    }
    return this.pad(key, "first");
  }

  /** Completes a key prefix with the values that sort first (or last) in scan order, record id included. */
  private pad(prefix: unknown[], side: "first" | "last"): IndexKey {
    const key = [...prefix];
    for (let i = key.length; i < this.scanBounds.length; i++) {
      const lowest = this.scanOrder(i) === 1 ? MIN_KEY : MAX_KEY;
      key.push(side === "first" ? lowest : lowest === MIN_KEY ? MAX_KEY : MIN_KEY);
    }
    const firstId = this.forward ? -Infinity : Infinity;
    key.push(side === "first" ? firstId : -firstId);
    return key;
  }

  /**
   * The first of a field's intervals (in scan order) that does not end before `value`, by binary search: an
   * `$in` of 1,000 values checked each key against every interval in turn. Counts nothing: mongod's bounds
   * checker finds the same interval.
   */
  private firstIntervalNotBefore(field: number, value: unknown): number {
    const intervals = this.scanBounds[field] ?? [];
    let low = 0;
    let high = intervals.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const interval = intervals[middle] as Interval;
      const order = this.compare(field, value, interval.high);
      if (order < 0 || (order === 0 && interval.highInclusive)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  private check(key: IndexKey): KeyCheck {
    for (let i = 0; i < this.scanBounds.length; i++) {
      const value = key[i];
      const interval = (this.scanBounds[i] ?? [])[this.firstIntervalNotBefore(i, value)];
      if (interval === undefined)
        return i === 0 ? { verdict: "done" } : { verdict: "seek", to: this.pad(key.slice(0, i) as unknown[], "last") };
      const order = this.compare(i, value, interval.low);
      if (order < 0 || (order === 0 && !interval.lowInclusive)) {
        const prefix = [...key.slice(0, i), interval.low];
        return { verdict: "seek", to: interval.lowInclusive ? this.startOf(i + 1, prefix) : this.pad(prefix, "last") };
      }
    }
    return { verdict: "valid" };
  }

  protected doWork(): WorkResult {
    if (this.pendingSeek !== undefined) this.seeks++;
    const key =
      this.pendingSeek !== undefined
        ? this.index.seek(this.pendingSeek, this.forward)
        : this.position === undefined
          ? undefined
          : this.index.next(this.position, this.forward);
    this.pendingSeek = undefined;
    if (key === undefined) return EOF;
    const check = this.check(key);
    if (this.singleInterval && check.verdict !== "valid") return EOF;
    this.examined++;
    this.position = key;
    if (check.verdict === "done") return EOF;
    if (check.verdict === "seek") {
      this.pendingSeek = check.to;
      return NEED_TIME;
    }
    const id = key[key.length - 1] as number;
    if (this.index.isMultikey) {
      if (this.seen.has(id)) {
        this.dupsDropped++;
        return NEED_TIME;
      }
      this.seen.add(id);
    }
    return { state: "advanced", id };
  }

  describe(): Document {
    const multiKeyPaths = Object.fromEntries(this.index.fields.map((field, i) => [field, this.index.multikeyFields.has(i) ? [field] : []]));
    return {
      keyPattern: this.index.spec.key,
      indexName: this.index.spec.name,
      isMultiKey: this.index.isMultikey,
      multiKeyPaths,
      isUnique: this.index.spec.unique,
      isSparse: this.index.spec.sparse,
      isPartial: false,
      indexVersion: 2,
      direction: this.forward ? "forward" : "backward",
      indexBounds: Object.fromEntries(this.index.fields.map((field, i) => [field, this.scanBounds[i]?.map(formatInterval) ?? []])),
    };
  }
  override statistics(): Document {
    return {
      keysExamined: this.examined,
      seeks: this.seeks,
      dupsTested: this.index.isMultikey ? this.advanced + this.dupsDropped : 0,
      dupsDropped: this.dupsDropped,
    };
  }
  override keysExamined(): number {
    return this.examined;
  }
}

/**
 * mongod's COUNT_SCAN: the index scan of a count whose bounds answer the whole filter, so it counts
 * keys and fetches nothing. Its explain names its one interval by start and end key.
 */
export class CountScan extends IndexScan {
  override readonly name = "COUNT_SCAN";
  /** count_scan.cpp counts a key examined before it learns its cursor is past the end: that last call counts too. */
  private endCalls = 0;

  protected override doWork(): WorkResult {
    const result = super.doWork();
    if (result.state === "eof") this.endCalls = 1;
    return result;
  }

  override keysExamined(): number {
    return super.keysExamined() + this.endCalls;
  }

  override describe(): Document {
    const { direction: _direction, indexBounds: _bounds, ...index } = super.describe();
    const ends = this.index.fields.map((_, i) => this.scanIntervals(i)[0]);
    const keyOf = (side: "low" | "high"): Document =>
      Object.fromEntries(this.index.fields.map((field, i) => [field, bsonBound(ends[i]?.[side])]));
    return {
      ...index,
      indexBounds: {
        startKey: keyOf("low"),
        startKeyInclusive: ends.every((interval) => interval?.lowInclusive !== false),
        endKey: keyOf("high"),
        endKeyInclusive: ends.every((interval) => interval?.highInclusive !== false),
      },
    };
  }
  override statistics(): Document {
    return { keysExamined: this.keysExamined() };
  }
}

/** A bound as the BSON value mongod shows in a COUNT_SCAN's start and end keys. */
function bsonBound(value: unknown): unknown {
  if (value instanceof KeyBound) return value.after ? new MaxKey() : new MinKey();
  return value;
}

function flip(interval: Interval): Interval {
  return { low: interval.high, lowInclusive: interval.highInclusive, high: interval.low, highInclusive: interval.lowInclusive };
}

/** mongod's isSingleInterval: point prefix, at most one other interval, then every field unbounded. */
export function isSingleInterval(bounds: readonly FieldBounds[]): boolean {
  let i = 0;
  while (i < bounds.length && bounds[i]?.length === 1 && isPointInterval(bounds[i]?.[0])) i++;
  if (i < bounds.length && bounds[i]?.length === 1) i++;
  while (i < bounds.length && bounds[i]?.length === 1 && bounds[i]?.[0]?.low === MIN_KEY && bounds[i]?.[0]?.high === MAX_KEY) i++;
  return i === bounds.length;
}

function isPointInterval(interval: Interval | undefined): boolean {
  return interval !== undefined && interval.lowInclusive && interval.highInclusive && compareKeyValues(interval.low, interval.high) === 0;
}

function formatBound(value: unknown): string {
  if (value === MIN_KEY) return "MinKey";
  if (value === MAX_KEY) return "MaxKey";
  if (value instanceof KeyBound) return value.after ? "MaxKey" : "MinKey";
  if (value === Infinity) return "inf.0";
  if (value === -Infinity) return "-inf.0";
  return value === undefined ? "undefined" : formatValue(value);
}

function formatInterval(interval: Interval): string {
  return `${interval.lowInclusive ? "[" : "("}${formatBound(interval.low)}, ${formatBound(interval.high)}${interval.highInclusive ? "]" : ")"}`;
}

/** Fetches each record its input names and applies the full filter (the bounds only narrowed). */
export class Fetch extends OneInputStage {
  readonly name = "FETCH";
  private examined = 0;

  constructor(
    private readonly collection: Collection,
    readonly input: Stage,
    private readonly test: DocumentTest,
    private readonly filter: Document,
  ) {
    super();
  }

  protected doWork(): WorkResult {
    const result = this.input.work();
    if (result.state !== "advanced") return result;
    const record = this.collection.record(result.id);
    if (record === undefined) return NEED_TIME;
    this.examined++;
    return this.test(record.plain) ? { state: "advanced", id: record.id, record } : NEED_TIME;
  }

  describe(): Document {
    return Object.keys(this.filter).length === 0 ? {} : { filter: this.filter };
  }
  override statistics(): Document {
    return { docsExamined: this.examined, alreadyHasObj: 0 };
  }
  override docsExamined(): number {
    return this.examined;
  }
}

/** `{_id: value}`: one lookup in the `_id` index, as mongod's IDHACK stage. */
export class IdLookup extends Stage {
  readonly name = "IDHACK";
  readonly children = [];
  private found = 0;

  constructor(
    private readonly collection: Collection,
    private readonly id: unknown,
  ) {
    super();
  }

  protected doWork(): WorkResult {
    if (this.works > 1) return EOF;
    const record = this.collection.findById(this.id);
    if (record === undefined) return EOF;
    this.found = 1;
    return { state: "advanced", id: record.id, record };
  }

  describe(): Document {
    return {};
  }
  override statistics(): Document {
    return { keysExamined: this.found, docsExamined: this.found };
  }
  override keysExamined(): number {
    return this.found;
  }
  override docsExamined(): number {
    return this.found;
  }
}

/** Runs its branches one after the other, dropping records an earlier branch returned. */
export class Or extends Stage {
  readonly name = "OR";
  private current = 0;
  private readonly seen = new Set<number>();
  private dupsDropped = 0;

  constructor(readonly children: readonly Stage[]) {
    super();
  }

  protected doWork(): WorkResult {
    const child = this.children[this.current];
    if (child === undefined) return EOF;
    const result = child.work();
    if (result.state === "eof") {
      this.current++;
      return NEED_TIME;
    }
    if (result.state !== "advanced") return result;
    if (this.seen.has(result.id)) {
      this.dupsDropped++;
      return NEED_TIME;
    }
    this.seen.add(result.id);
    return result;
  }

  describe(): Document {
    return {};
  }
  override statistics(): Document {
    return { dupsTested: this.advanced + this.dupsDropped, dupsDropped: this.dupsDropped };
  }
}

/** mongod's SUBPLAN above a rooted `$or`, whose branches were planned one by one: it passes its plan's results through. */
export class Subplan extends OneInputStage {
  readonly name = "SUBPLAN";

  constructor(readonly input: Stage) {
    super();
    // Placed above a plan the trial may already have run to its end.
    this.isEOF = input.isEOF;
  }

  protected doWork(): WorkResult {
    return this.input.work();
  }

  describe(): Document {
    return {};
  }
}

/**
 * A blocking sort. With a limit it is mongod's top-k sort: it holds only the best `limit` records
 * seen so far, in order (a record ties after those already held, so ties keep their input order).
 */
export class Sort extends OneInputStage {
  readonly name = "SORT";
  private held: Array<{ readonly record: StoredDocument; readonly keys: unknown[] }> = [];
  private inputDone = false;
  private emitted = 0;

  constructor(
    private readonly collection: Collection,
    readonly input: Stage,
    private readonly spec: SortSpec,
    private readonly limit: number | undefined,
  ) {
    super();
  }

  protected doWork(): WorkResult {
    if (!this.inputDone) {
      const result = this.input.work();
      if (result.state === "advanced") {
        const record = result.record ?? this.collection.record(result.id);
        if (record !== undefined) this.hold(record);
      } else if (result.state === "eof") {
        this.inputDone = true;
        if (this.limit === undefined) this.held.sort((a, b) => compareSortKeys(a.keys, b.keys, this.spec));
      }
      return NEED_TIME;
    }
    const entry = this.held[this.emitted++];
    return entry === undefined ? EOF : { state: "advanced", id: entry.record.id, record: entry.record };
  }

  private hold(record: StoredDocument): void {
    const entry = { record, keys: sortKeys(record.plain, this.spec) };
    if (this.limit === undefined) {
      this.held.push(entry);
      return;
    }
    let low = 0;
    let high = this.held.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compareSortKeys((this.held[middle] as typeof entry).keys, entry.keys, this.spec) <= 0) low = middle + 1;
      else high = middle;
    }
    if (low >= this.limit) return;
    this.held.splice(low, 0, entry);
    if (this.held.length > this.limit) this.held.pop();
  }

  describe(): Document {
    return {
      sortPattern: Object.fromEntries(this.spec),
      memLimit: 104857600,
      ...(this.limit === undefined ? {} : { limitAmount: this.limit }),
      type: "simple",
    };
  }
  override statistics(): Document {
    return { totalDataSizeSorted: 0, usedDisk: false, spills: 0 };
  }
}

export class Skip extends OneInputStage {
  readonly name = "SKIP";
  private skipped = 0;

  constructor(
    readonly input: Stage,
    private readonly amount: number,
  ) {
    super();
  }

  protected doWork(): WorkResult {
    const result = this.input.work();
    if (result.state === "advanced" && this.skipped < this.amount) {
      this.skipped++;
      return NEED_TIME;
    }
    return result;
  }

  describe(): Document {
    return { skipAmount: this.amount };
  }
}

export class Limit extends OneInputStage {
  readonly name = "LIMIT";

  constructor(
    readonly input: Stage,
    private readonly amount: number,
  ) {
    super();
  }

  protected doWork(): WorkResult {
    if (this.advanced >= this.amount) return EOF;
    return this.input.work();
  }

  /** As mongod's LIMIT, it is at its end once it has returned its amount, without another call. */
  override work(): WorkResult {
    const result = super.work();
    if (this.advanced >= this.amount) this.isEOF = true;
    return result;
  }

  describe(): Document {
    return { limitAmount: this.amount };
  }
}

/** A running plan: its root stage, and its results (those the plan trial already produced first). */
export interface PlanRun {
  readonly root: Stage;
  next(): StoredDocument | undefined;
}

/** mongod's COUNT: counts what its plan returns, after skipping `skip`, stopping at `limit`; it returns nothing itself. */
export class Count extends Stage {
  readonly name = "COUNT";
  readonly children: readonly Stage[];
  private counted = 0;
  private skipped = 0;

  constructor(
    private readonly run: PlanRun,
    private readonly skip: number,
    private readonly limit: number | undefined,
  ) {
    super();
    this.children = [run.root];
  }

  /** Runs to the end and answers the count. */
  total(): number {
    while (this.work().state !== "eof");
    return this.counted;
  }

  protected doWork(): WorkResult {
    if (this.limit !== undefined && this.counted >= this.limit) return EOF;
    if (this.run.next() === undefined) return EOF;
    if (this.skipped < this.skip) this.skipped++;
    else this.counted++;
    return NEED_TIME;
  }

  describe(): Document {
    return {};
  }
  override statistics(): Document {
    return { nCounted: this.counted, nSkipped: this.skipped };
  }
}

/** The plan for a collection that does not exist. */
export class EmptyPlan extends Stage {
  readonly name = "EOF";
  readonly children = [];

  protected doWork(): WorkResult {
    return EOF;
  }
  describe(): Document {
    return {};
  }
}
