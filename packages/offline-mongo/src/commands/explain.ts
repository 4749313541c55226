import type { Document } from "bson";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";
import type { QueryExecution } from "../query-engine/planner";
import { explainExecution, explainPlanner, total, type Stage } from "../query-engine/stages";
import { OFFLINE_SERVER_VERSION } from "../version";
import { documentArg } from "../values/values";
import { AGGREGATE_FIELDS, planAggregate } from "./aggregate";
import { collectionName, namespace } from "./common";
import type { CommandContext, CommandDefinition } from "./context";
import { checkGenericFields } from "./fields";
import { COUNT_FIELDS, FIND_FIELDS, isFastCount, planCount, planFind } from "./read";

type Verbosity = "queryPlanner" | "executionStats" | "allPlansExecution";
const VERBOSITIES: readonly string[] = ["queryPlanner", "executionStats", "allPlansExecution"];

/** What one explained command planned: its winning plan, the rejected ones, and how to run it to the end. */
interface Explained {
  readonly root: Stage;
  readonly rejected: readonly Stage[];
  readonly filter: Document;
  /** Runs the plan to completion (executionStats and above); answers how many documents it returned. */
  run(): number;
}

function fromExecution(execution: QueryExecution, filter: Document): Explained {
  return { root: execution.root, rejected: execution.rejected, filter, run: () => execution.drain().length };
}

function queryPlanner(ns: string, explained: Explained): Document {
  return {
    namespace: ns,
    indexFilterSet: false,
    parsedQuery: explained.filter,
    maxIndexedOrSolutionsReached: false,
    maxIndexedAndSolutionsReached: false,
    maxScansToExplodeReached: false,
    winningPlan: explainPlanner(explained.root),
    rejectedPlans: explained.rejected.map(explainPlanner),
  };
}

/** Summary figures of one plan tree, as in mongod's executionStats and allPlansExecution entries. */
function planFigures(root: Stage): Document {
  return {
    totalKeysExamined: total(root, (stage) => stage.keysExamined()),
    totalDocsExamined: total(root, (stage) => stage.docsExamined()),
    executionStages: explainExecution(root),
  };
}

/** The explain document's plan sections at the requested verbosity; anything above queryPlanner runs the plan. */
function planSections(ns: string, explained: Explained, verbosity: Verbosity): Document {
  const planner = { queryPlanner: queryPlanner(ns, explained) };
  if (verbosity === "queryPlanner") return planner;
  const started = Date.now();
  const nReturned = explained.run();
  const allPlans =
    verbosity === "allPlansExecution"
      ? {
          allPlansExecution: [explained.root, ...explained.rejected].map((plan) => ({
            nReturned: plan.advanced,
            executionTimeMillisEstimate: 0,
            ...planFigures(plan),
          })),
        }
      : {};
  const executionTimeMillis = Date.now() - started;
  return {
    ...planner,
    executionStats: { executionSuccess: true, nReturned, executionTimeMillis, ...planFigures(explained.root), ...allPlans },
  };
}

function explainFind(inner: Document, context: CommandContext, verbosity: Verbosity): Document {
  const { execution, collection } = planFind(inner, context);
  return planSections(namespace(context, collection), fromExecution(execution, documentOrEmpty(inner["filter"])), verbosity);
}

/** A count without a query is RECORD_STORE_FAST_COUNT; with one, mongod's COUNT stage over the query's plan. */
function explainCount(inner: Document, context: CommandContext, verbosity: Verbosity): Document {
  const ns = namespace(context, collectionName(inner, "count"));
  if (isFastCount(inner)) {
    const fast = { stage: "RECORD_STORE_FAST_COUNT" };
    const planner = { queryPlanner: { namespace: ns, indexFilterSet: false, parsedQuery: {}, winningPlan: fast, rejectedPlans: [] } };
    if (verbosity === "queryPlanner") return planner;
    const stats = { executionSuccess: true, nReturned: 0, executionTimeMillis: 0, totalKeysExamined: 0, totalDocsExamined: 0 };
    return { ...planner, executionStats: { ...stats, executionStages: { ...fast, nReturned: 0, works: 1, advanced: 0, isEOF: 1 } } };
  }
  const counter = planCount(inner, context);
  const explained: Explained = {
    root: counter,
    rejected: [],
    filter: documentOrEmpty(inner["query"]),
    run: () => {
      counter.total();
      return 0;
    },
  };
  return planSections(ns, explained, verbosity);
}

/**
 * A pipeline whose every stage went to the query planner explains like a find; otherwise mongod
 * lists the stages, the first being `$cursor` with the planner's sections.
 */
function explainAggregate(inner: Document, context: CommandContext, verbosity: Verbosity): Document {
  const { execution, rest, name, filter } = planAggregate(inner, context);
  const sections = planSections(namespace(context, name), fromExecution(execution, filter), verbosity);
  return rest.length === 0 ? sections : { stages: [{ $cursor: sections }, ...rest] };
}

const EXPLAINABLE: Readonly<Record<string, { fields: readonly string[]; explain: typeof explainFind }>> = {
  find: { fields: FIND_FIELDS, explain: explainFind },
  count: { fields: COUNT_FIELDS, explain: explainCount },
  aggregate: { fields: AGGREGATE_FIELDS, explain: explainAggregate },
};

function documentOrEmpty(value: unknown): Document {
  return value === undefined ? {} : documentArg("explain", "filter", value);
}

function parseVerbosity(value: unknown): Verbosity {
  if (value === undefined) return "allPlansExecution";
  if (typeof value !== "string" || !VERBOSITIES.includes(value)) {
    throw new MongoCommandError(
      ErrorCode.BadValue,
      "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}",
    );
  }
  return value as Verbosity;
}

/** mongod's `explain` command for find, count and aggregate (other commands are refused by name). */
const explain: CommandDefinition = {
  names: ["explain"],
  fields: ["verbosity"],
  run(body, context) {
    const inner = documentArg("explain", "explain", body["explain"]);
    const verbosity = parseVerbosity(body["verbosity"]);
    const name = Object.keys(inner)[0] ?? "";
    const explainable = EXPLAINABLE[name];
    if (explainable === undefined) throw notSupported(`explain of the ${name} command (only find, count and aggregate)`);
    checkGenericFields(name, inner, explainable.fields, context.replicaSet !== undefined);
    const sections = explainable.explain(inner, context, verbosity);
    return {
      explainVersion: "1",
      ...sections,
      command: { ...inner, $db: context.db },
      serverInfo: { host: "localhost", port: 27017, version: OFFLINE_SERVER_VERSION, gitVersion: "offline" },
      ok: 1,
    };
  },
};

export const explainCommands: readonly CommandDefinition[] = [explain];
