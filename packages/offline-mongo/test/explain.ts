import type { Collection, Document } from "mongodb";

/** One stage of an explained plan, as mongod writes it in `winningPlan` and `executionStages`. */
export interface PlanStage extends Document {
  readonly stage: string;
  readonly inputStage?: PlanStage;
  readonly inputStages?: readonly PlanStage[];
}

/** What a test reads of an `explain` at `executionStats` verbosity. */
export interface ExplainedRun {
  readonly winningPlan: PlanStage;
  readonly executionStages: PlanStage;
  readonly nReturned: number;
  readonly totalKeysExamined: number;
  readonly totalDocsExamined: number;
}

/**
 * A plan's stages from the root down, e.g. `LIMIT > FETCH > IXSCAN`, with an OR's branches in
 * parentheses: `SUBPLAN > FETCH > OR(IXSCAN, IXSCAN)`. Comparing these strings shows the whole
 * tree in a failure message.
 */
export function planShape(stage: PlanStage): string {
  if (stage.inputStages !== undefined) return `${stage.stage}(${stage.inputStages.map(planShape).join(", ")})`;
  return stage.inputStage === undefined ? stage.stage : `${stage.stage} > ${planShape(stage.inputStage)}`;
}

/** The first stage named `name`, depth first; fails the test when the plan has none. */
export function stageNamed(root: PlanStage, name: string): PlanStage {
  const found = stagesOf(root).find((stage) => stage.stage === name);
  if (found === undefined) throw new Error(`no ${name} stage in ${planShape(root)}`);
  return found;
}

/** Every stage named `name`, depth first (e.g. each IXSCAN under an OR). */
export function stagesNamed(root: PlanStage, name: string): PlanStage[] {
  return stagesOf(root).filter((stage) => stage.stage === name);
}

function stagesOf(stage: PlanStage): PlanStage[] {
  const children = stage.inputStages ?? (stage.inputStage === undefined ? [] : [stage.inputStage]);
  return [stage, ...children.flatMap(stagesOf)];
}

/**
 * Reads an `executionStats` explain. mongod answers an aggregate whose every stage went into the
 * query layer in find's shape, and otherwise puts find's answer in the first stage's `$cursor`: both are read.
 */
export function explainedRun(explain: Document): ExplainedRun {
  const cursorStage: Document | undefined = Array.isArray(explain["stages"]) ? explain["stages"][0]?.["$cursor"] : undefined;
  const source: Document = cursorStage ?? explain;
  const queryPlanner: Document = source["queryPlanner"];
  const stats: Document = source["executionStats"];
  if (queryPlanner === undefined || stats === undefined) throw new Error(`not an executionStats explain: ${JSON.stringify(explain)}`);
  return {
    winningPlan: queryPlanner["winningPlan"],
    executionStages: stats["executionStages"],
    nReturned: stats["nReturned"],
    totalKeysExamined: stats["totalKeysExamined"],
    totalDocsExamined: stats["totalDocsExamined"],
  };
}

/** The `explain` command at `executionStats` verbosity around any command (count, aggregate, find). */
export async function explainCommand<T extends Document>(collection: Collection<T>, command: Document): Promise<ExplainedRun> {
  const explain = await collection.db.command({ explain: command, verbosity: "executionStats" });
  return explainedRun(explain);
}
