import type { Db } from "mongodb";
import { isDuplicateKeyError } from "../../db/errors";
import { createIndexes, type RequiredIndex } from "../../db/indexes";
import { findMissingSalesIndexes, UNIQUE_PAGE_INDEX } from "../../sales/indexes";
import { relayOutPages } from "../page-relayout";
import type { Repair, Violation } from "./violations";

export type RepairOutcome = "repaired" | "changed";

/** Applies each violation's repair; "changed" means the data moved on since it was checked, so nothing was written. */
export async function repairViolations(db: Db, violations: readonly Violation[]): Promise<Map<Violation, RepairOutcome>> {
  const outcomes = new Map<Violation, RepairOutcome>();
  for (const violation of violations) {
    if (violation.repair) outcomes.set(violation, await applyRepair(db, violation.repair));
  }
  return outcomes;
}

async function applyRepair(db: Db, repair: Repair): Promise<RepairOutcome> {
  if ("relayout" in repair) {
    // With the index back, the API appends to pages again and would race the rewrite: then it is too late.
    const pageIndexMissing = (await findMissingSalesIndexes(db)).some((index) => index.name === UNIQUE_PAGE_INDEX);
    if (!pageIndexMissing) return "changed";
    await relayOutPages(db, repair.relayout, repair.pageSize);
    return "repaired";
  }
  if ("index" in repair) return createIndex(db, repair.index);
  const { matchedCount } = await db.collection(repair.collection).updateOne(repair.filter, { $set: repair.set });
  return matchedCount === 1 ? "repaired" : "changed";
}

async function createIndex(db: Db, index: RequiredIndex): Promise<RepairOutcome> {
  try {
    await createIndexes(db, [index]);
    return "repaired";
  } catch (error) {
    if (isDuplicateKeyError(error)) return "changed";
    throw error;
  }
}
