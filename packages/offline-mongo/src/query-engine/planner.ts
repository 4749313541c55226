import type { Document } from "bson";
import { ALL_VALUES, indexablePredicates, intersect, isAllValues, isPoint, type FieldBounds, type IndexablePredicates } from "./bounds";
import { ErrorCode, MongoCommandError } from "../errors";
import type { Index } from "./indexes";
import type { SortSpec } from "../language/query";
import { compareKeyValues } from "./keys";
import {
  CollectionScan,
  CountScan,
  EmptyPlan,
  Fetch,
  IdLookup,
  IndexScan,
  isSingleInterval,
  Limit,
  Or,
  Skip,
  Sort,
  Subplan,
  total,
  type DocumentTest,
  type Stage,
  type WorkResult,
} from "./stages";
import type { Collection, StoredDocument } from "./storage";
import { isDocument } from "../values/values";

/** A read as the planner sees it: the typed filter, its compiled test, sort, skip, limit and hint. */
export interface QueryRequest {
  readonly filter: Document;
  readonly test: DocumentTest;
  readonly sort: SortSpec;
  readonly skip: number;
  /** Positive, or undefined for no limit. */
  readonly limit: number | undefined;
  /** An index found by name or key pattern, `"$natural"` for a forced collection scan, or undefined. */
  readonly hint: Index | "$natural" | undefined;
  /** A count's plan: an index scan whose bounds answer the whole filter counts keys (COUNT_SCAN) instead of fetching. */
  readonly countOnly: boolean;
}

export interface PlannerSettings {
  /**
   * mongod's `notablescan`, already waived where mongod waives it: a query that only a collection
   * scan could answer fails with 291 (see {@link refusesTableScan}).
   */
  readonly notablescan: boolean;
}

/**
 * mongod's NO_TABLE_SCAN rule (get_executor.cpp, fillOutPlannerParams): with `notablescan` set, a
 * query may not scan the collection unless its filter is empty, or the collection is a `system.*`
 * one, or lives in `admin`, `local` or `config`.
 */
export function refusesTableScan(notablescan: boolean, database: string, collection: string, filter: Document): boolean {
  const exempt = Object.keys(filter).length === 0 || collection.startsWith("system.") || ["admin", "local", "config"].includes(database);
  return notablescan && !exempt;
}

/** query_planner.cpp's two refusals under NO_TABLE_SCAN: a hinted `$natural`, and no indexed plan at all. */
function refuseTableScan(hinted: boolean): MongoCommandError {
  const reason = hinted
    ? "hint $natural is not allowed, because 'notablescan' is enabled"
    : "No indexed plans available, and running with 'notablescan'";
  return new MongoCommandError(ErrorCode.NoQueryExecutionPlans, `error processing query: planner returned error :: caused by :: ${reason}`);
}

/** mongod's internalQueryPlanEvaluationMaxResults and internalQueryPlanEvaluationWorks. */
const TRIAL_MAX_RESULTS = 101;
const TRIAL_MIN_WORKS = 10_000;
/** mongod's internalQueryPlanEvaluationCollFraction. */
const TRIAL_COLLECTION_FRACTION = 0.3;

/** An index scan the planner may run: which index, its bounds per field, and its direction. */
interface IndexAccess {
  readonly index: Index;
  readonly bounds: readonly FieldBounds[];
  readonly forward: boolean;
  /** True when walking the index yields the requested sort, so no SORT stage is needed. */
  readonly providesSort: boolean;
  /** What of the filter the bounds do not answer exactly: the FETCH stage's filter in explain. */
  readonly residual: Document;
}

/** An access path: one index scan, or one per `$or` branch. */
type Access = { readonly kind: "index"; readonly scan: IndexAccess } | { readonly kind: "or"; readonly branches: readonly IndexAccess[] };

/** The chosen plan, ready to run: results the trial already produced come first. */
export class QueryExecution {
  private readonly buffered: StoredDocument[];

  constructor(
    private readonly collection: Collection | undefined,
    readonly root: Stage,
    readonly rejected: readonly Stage[],
    buffered: readonly StoredDocument[],
  ) {
    this.buffered = [...buffered];
  }

  /** The next result, or undefined once the plan is exhausted. */
  next(): StoredDocument | undefined {
    const early = this.buffered.shift();
    if (early !== undefined) return early;
    for (;;) {
      const result = this.root.work();
      if (result.state === "eof") return undefined;
      if (result.state === "advanced") return recordOf(this.collection, result);
    }
  }

  drain(): StoredDocument[] {
    const out: StoredDocument[] = [];
    for (let record = this.next(); record !== undefined; record = this.next()) out.push(record);
    return out;
  }

  get exhausted(): boolean {
    return this.buffered.length === 0 && this.root.isEOF;
  }

  get keysExamined(): number {
    return total(this.root, (stage) => stage.keysExamined());
  }

  get docsExamined(): number {
    return total(this.root, (stage) => stage.docsExamined());
  }
}

function recordOf(collection: Collection | undefined, result: WorkResult & { state: "advanced" }): StoredDocument | undefined {
  return result.record ?? collection?.record(result.id);
}

/**
 * Plans a read as mongod's classic planner does for the shapes it serves here (see the README's
 * "How a plan is chosen"), runs the multi-plan trial when several plans qualify, and returns the winner.
 */
export function planQuery(collection: Collection | undefined, request: QueryRequest, settings: PlannerSettings): QueryExecution {
  if (collection === undefined) return new QueryExecution(undefined, new EmptyPlan(), [], []);
  const idValue = idHackValue(request);
  if (idValue !== undefined) return new QueryExecution(collection, new IdLookup(collection, idValue.value), [], []);
  const accesses = request.hint === "$natural" ? [] : candidateAccesses(collection, request);
  if (accesses.length === 0) {
    if (settings.notablescan) throw refuseTableScan(request.hint === "$natural");
    const scan = new CollectionScan(collection, request.test, request.filter);
    return new QueryExecution(collection, subplanned(request, finish(collection, scan, request, false)), [], []);
  }
  const plans = accesses.map((access) => buildPlan(collection, access, request));
  if (plans.length === 1) return new QueryExecution(collection, subplanned(request, plans[0] as Stage), [], []);
  return runTrial(collection, plans, request);
}

/**
 * mongod plans a rooted `$or` (a filter that is one non-empty `$or`, without a hint) branch by
 * branch, under a SUBPLAN stage, whatever plan comes of it (subplan.cpp, canUseSubplanning).
 */
function subplanned(request: QueryRequest, root: Stage): Stage {
  const branches: unknown = request.filter["$or"];
  const rooted = Object.keys(request.filter).length === 1 && Array.isArray(branches) && branches.length > 0;
  return rooted && request.hint === undefined ? new Subplan(root) : root;
}

/** mongod's IDHACK: a filter that is exactly `{_id: <value>}` (no operators, regex or array), with no hint or skip, not a count. */
function idHackValue(request: QueryRequest): { value: unknown } | undefined {
  const keys = Object.keys(request.filter);
  if (keys.length !== 1 || keys[0] !== "_id" || request.hint !== undefined || request.skip > 0 || request.countOnly) return undefined;
  const value: unknown = request.filter["_id"];
  if (value === null || Array.isArray(value) || (isDocument(value) && Object.keys(value).some((key) => key.startsWith("$"))))
    return undefined;
  if (typeof value === "object" && value !== null && (value.constructor.name === "BSONRegExp" || value instanceof RegExp)) return undefined;
  return { value };
}

function candidateAccesses(collection: Collection, request: QueryRequest): Access[] {
  const predicates = indexablePredicates(request.filter);
  const indexes = request.hint === undefined || request.hint === "$natural" ? collection.indexes : [request.hint];
  const scans = indexes.flatMap((index) => indexAccess(index, predicates, request, request.hint !== undefined) ?? []);
  if (!scans.some((scan) => scan.providesSort) && request.sort.length > 0 && request.hint === undefined) {
    const sorting = collection.indexes.map((index) => wholeIndexForSort(index, request)).find((scan) => scan !== undefined);
    if (sorting !== undefined) scans.push(sorting);
  }
  const accesses: Access[] = scans.map((scan) => ({ kind: "index", scan }));
  if (predicates.orBranches === undefined || request.hint !== undefined) return accesses;
  const branches = predicates.orBranches.map((branch) => bestBranchAccess(collection, branch));
  return branches.every((branch) => branch !== undefined) ? [...accesses, { kind: "or", branches: branches as IndexAccess[] }] : accesses;
}

/** The bounds an index gets from the predicates; a multikey field takes only its first predicate's, as mongod cannot intersect them. */
function boundsFor(index: Index, predicates: IndexablePredicates): FieldBounds[] {
  return index.fields.map((field, i) => {
    const found = predicates.byField.get(field);
    if (found === undefined || found.length === 0) return ALL_VALUES;
    if (index.multikeyFields.has(i)) return found[0] ?? ALL_VALUES;
    return found.reduce((acc, bounds) => intersect(acc, bounds));
  });
}

/** An index is a candidate when its leading field has a predicate (or it is hinted); sparse indexes only when null is not sought. */
function indexAccess(
  index: Index,
  predicates: IndexablePredicates,
  request: Pick<QueryRequest, "filter" | "sort">,
  hinted: boolean,
): IndexAccess | undefined {
  const bounds = boundsFor(index, predicates);
  const leading = bounds[0] ?? ALL_VALUES;
  if (!hinted && isAllValues(leading)) return undefined;
  if (!hinted && index.spec.sparse && seeksMissing(index, predicates, bounds)) return undefined;
  const direction = sortDirection(index, bounds, request.sort);
  return {
    index,
    bounds,
    forward: direction !== -1,
    providesSort: direction !== 0,
    residual: residualFilter(index, predicates, request.filter),
  };
}

/** A sparse index lacks documents missing its fields, so it cannot answer a predicate that matches null (missing). */
function seeksMissing(index: Index, predicates: IndexablePredicates, bounds: readonly FieldBounds[]): boolean {
  return index.fields.some(
    (field, i) => predicates.byField.has(field) && (bounds[i] ?? []).some((interval) => compareKeyValues(interval.low, null) <= 0),
  );
}

/**
 * The filter without the fields this index's bounds answer exactly (each exact and, on a multikey
 * field, alone, since only one predicate bounds it), as mongod leaves them out of the FETCH filter.
 */
function residualFilter(index: Index, predicates: IndexablePredicates, filter: Document): Document {
  const answered = (field: string): boolean => {
    const position = index.fields.indexOf(field);
    if (position < 0 || !predicates.exactFields.has(field)) return false;
    return !index.multikeyFields.has(position) || predicates.byField.get(field)?.length === 1;
  };
  return Object.fromEntries(Object.entries(filter).filter(([field]) => !answered(field)));
}

/**
 * +1 or -1 when scanning the index forward or backward yields the sort, else 0: sort fields must
 * follow the index's fields in order, skipping only fields bound to a single point, with every
 * direction matching (or every one reversed), and none of them multikey.
 */
function sortDirection(index: Index, bounds: readonly FieldBounds[], sort: SortSpec): number {
  if (sort.length === 0) return 0;
  let matched = 0;
  let direction = 0;
  for (let i = 0; i < index.fields.length && matched < sort.length; i++) {
    const [field, wanted] = sort[matched] ?? ["", 1];
    if (index.fields[i] !== field) {
      if (isPoint(bounds[i] ?? ALL_VALUES)) continue;
      return 0;
    }
    if (index.multikeyFields.has(i)) return 0;
    const needed = wanted * (index.directions[i] ?? 1);
    if (direction !== 0 && needed !== direction) return 0;
    direction = needed;
    matched++;
  }
  return matched === sort.length ? direction : 0;
}

/** mongod adds a whole-index scan of the first index whose key pattern starts with the sort (or its reverse). */
function wholeIndexForSort(index: Index, request: QueryRequest): IndexAccess | undefined {
  if (index.spec.sparse) return undefined;
  const bounds = index.fields.map(() => ALL_VALUES);
  const direction = sortDirection(index, bounds, request.sort);
  return direction === 0 ? undefined : { index, bounds, forward: direction === 1, providesSort: true, residual: request.filter };
}

/** Each `$or` branch is planned alone (mongod's subplanner); a branch no index serves makes the whole `$or` a collection scan. */
function bestBranchAccess(collection: Collection, branch: Document): IndexAccess | undefined {
  const predicates = indexablePredicates(branch);
  const scans = collection.indexes.flatMap((index) => indexAccess(index, predicates, { filter: branch, sort: [] }, false) ?? []);
  if (scans.length <= 1) return scans[0];
  const request: QueryRequest = {
    filter: branch,
    test: () => true,
    sort: [],
    skip: 0,
    limit: undefined,
    hint: undefined,
    countOnly: false,
  };
  const plans = scans.map((scan) => new IndexScan(scan.index, scan.bounds, scan.forward) as Stage);
  const winner = chooseByTrial(collection, plans, request).winner;
  return scans[plans.indexOf(plans[winner] as Stage)];
}

function buildPlan(collection: Collection, access: Access, request: QueryRequest): Stage {
  if (access.kind === "index") {
    const { index, bounds, forward, providesSort, residual } = access.scan;
    if (request.countOnly && countsKeys(access.scan)) return new CountScan(index, bounds, forward);
    return fetchAndFinish(collection, new IndexScan(index, bounds, forward), request, residual, providesSort);
  }
  const or = new Or(access.branches.map((branch) => new IndexScan(branch.index, branch.bounds, branch.forward)));
  const exact = access.branches.every((branch) => Object.keys(branch.residual).length === 0);
  return fetchAndFinish(collection, or, request, exact ? {} : request.filter, false);
}

const matchesAll: DocumentTest = () => true;

/**
 * FETCH above index keys, then the stages above it. When the bounds decide the filter exactly and no
 * SORT needs the documents, SKIP goes under FETCH, so skipped keys are never fetched, as mongod's
 * planner_analysis.cpp adds SKIP before the FETCH an unfetched plan still needs (SERVER-13946).
 */
function fetchAndFinish(collection: Collection, keys: Stage, request: QueryRequest, residual: Document, sortProvided: boolean): Stage {
  const needsSort = request.sort.length > 0 && !sortProvided;
  // Bounds that decide the filter leave FETCH nothing to test, as mongod's FETCH without a filter: an `_id` `$in`
  // of 1,000 ids tested each of its documents against all 1,000 again.
  const test = Object.keys(residual).length === 0 ? matchesAll : request.test;
  if (request.skip === 0 || needsSort || Object.keys(residual).length > 0)
    return finish(collection, new Fetch(collection, keys, test, residual), request, sortProvided);
  const fetch = new Fetch(collection, new Skip(keys, request.skip), test, residual);
  return finish(collection, fetch, { ...request, skip: 0 }, sortProvided);
}

/**
 * mongod's COUNT_SCAN conditions (get_executor.cpp, turnIxscanIntoCount): the bounds answer the whole
 * filter and form one interval. A multikey index qualifies too: its COUNT_SCAN counts each document
 * once, dropping the keys of a document it has counted (count_scan.cpp dedups when the index is multikey).
 */
function countsKeys(scan: IndexAccess): boolean {
  return Object.keys(scan.residual).length === 0 && isSingleInterval(scan.bounds);
}

/** Adds mongod's SORT (top-k when limited), SKIP and LIMIT stages above an access path. */
function finish(collection: Collection, input: Stage, request: QueryRequest, sortProvided: boolean): Stage {
  const needsSort = request.sort.length > 0 && !sortProvided;
  const limit = request.limit;
  if (needsSort) {
    const sorted = new Sort(collection, input, request.sort, limit === undefined ? undefined : request.skip + limit);
    return request.skip > 0 ? new Skip(sorted, request.skip) : sorted;
  }
  const skipped = request.skip > 0 ? new Skip(input, request.skip) : input;
  return limit === undefined ? skipped : new Limit(skipped, limit);
}

interface TrialOutcome {
  readonly winner: number;
  readonly results: ReadonlyArray<readonly StoredDocument[]>;
}

/**
 * mongod's multi-planner: every candidate works in turn until one has produced 101 results (or the
 * limit), one reaches its end, or each has had max(10,000, 30% of the collection) works. The score
 * (plan_ranker.h) is 1 + results per work, + 1 for a plan that reached its end, + a small bonus for
 * needing no SORT (the fetch and index-intersection bonuses are the same for every plan here);
 * ties go to the earlier candidate.
 */
function chooseByTrial(collection: Collection, plans: readonly Stage[], request: QueryRequest): TrialOutcome {
  const wanted = Math.min(TRIAL_MAX_RESULTS, request.limit ?? Infinity);
  const maxWorks = Math.max(TRIAL_MIN_WORKS, Math.floor(TRIAL_COLLECTION_FRACTION * collection.size));
  const results = plans.map(() => [] as StoredDocument[]);
  let finished = false;
  for (let round = 0; round < maxWorks && !finished; round++) {
    plans.forEach((plan, i) => {
      if (finished) return;
      const result = plan.work();
      if (result.state === "advanced") {
        const record = recordOf(collection, result);
        if (record !== undefined) results[i]?.push(record);
      }
      if (result.state === "eof" || (results[i]?.length ?? 0) >= wanted) finished = true;
    });
  }
  const scores = plans.map((plan) => {
    const works = Math.max(plan.works, 1);
    const bonus = plan.hasStage("SORT") ? 0 : Math.min(1 / (10 * works), 1e-4);
    return 1 + plan.advanced / works + (plan.isEOF ? 1 : 0) + bonus;
  });
  const winner = scores.reduce((best, score, i) => (score > (scores[best] ?? -Infinity) ? i : best), 0);
  return { winner, results };
}

function runTrial(collection: Collection, plans: readonly Stage[], request: QueryRequest): QueryExecution {
  const { winner, results } = chooseByTrial(collection, plans, request);
  const rejected = plans.filter((_, i) => i !== winner);
  return new QueryExecution(collection, subplanned(request, plans[winner] as Stage), rejected, results[winner] ?? []);
}
