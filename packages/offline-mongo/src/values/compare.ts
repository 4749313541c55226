import { Binary, ObjectId, Timestamp, type Document } from "bson";
import { isDocument } from "./values";

/**
 * mongod's cross-type sort order. Null and missing sort together, before numbers; `undefined` stands
 * for the sort key of an empty array, which mongod places before them.
 */
export function typeRank(value: unknown): number {
  if (value === undefined) return 0;
  if (value === null) return 1;
  if (typeof value === "number") return 2;
  if (typeof value === "string") return 3;
  if (isDocument(value)) return 4;
  if (Array.isArray(value)) return 5;
  if (value instanceof Binary) return 6;
  if (value instanceof ObjectId) return 7;
  if (typeof value === "boolean") return 8;
  if (value instanceof Date) return 9;
  if (value instanceof Timestamp) return 10;
  return 11;
}

/** Compares two plain values (numbers already JS numbers) as mongod's sort does. */
export function compareValues(a: unknown, b: unknown): number {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (typeof a === "number" && typeof b === "number") return compareNumbers(a, b);
  if (typeof a === "string" && typeof b === "string") return compareBytes(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  // mongod compares ObjectIds as their 12 bytes (memcmp); their hex strings order alike, at many times the cost.
  if (a instanceof ObjectId && b instanceof ObjectId) return Buffer.compare(a.id, b.id);
  if (Array.isArray(a) && Array.isArray(b)) return compareSequences(a, b);
  if (isDocument(a) && isDocument(b)) return compareDocuments(a, b);
  return String(a).localeCompare(String(b));
}

/** mongod orders NaN before every other number, -Infinity included. */
function compareNumbers(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number(!Number.isNaN(a)) - Number(!Number.isNaN(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Strings and field names compare by their UTF-8 bytes, as mongod's memcmp does (no locale). Below the
 * surrogates (U+D800) UTF-16 code units order as UTF-8 bytes do, so the common case needs no encoding:
 * index maintenance compares strings millions of times in a test run.
 */
export function compareBytes(a: string, b: string): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const unitA = a.charCodeAt(i);
    const unitB = b.charCodeAt(i);
    if (unitA === unitB) continue;
    if (unitA < 0xd800 && unitB < 0xd800) return unitA - unitB;
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  }
  return a.length - b.length;
}

function compareSequences(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Field by field as mongod's woCompare: the value's type first, then the field name, then the value. */
function compareDocuments(a: Document, b: Document): number {
  const entriesA = Object.entries(a);
  const entriesB = Object.entries(b);
  for (let i = 0; i < Math.min(entriesA.length, entriesB.length); i++) {
    const [keyA, valueA] = entriesA[i] ?? [];
    const [keyB, valueB] = entriesB[i] ?? [];
    const order = typeRank(valueA) - typeRank(valueB) || compareBytes(keyA ?? "", keyB ?? "") || compareValues(valueA, valueB);
    if (order !== 0) return order;
  }
  return entriesA.length - entriesB.length;
}
