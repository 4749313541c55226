import type { Document } from "bson";
import { isDocument } from "./values";

/**
 * Every value a dotted path reaches in a document, descending into arrays the way MongoDB
 * queries and indexes do (an array at the end contributes its elements). An empty result means
 * the path is missing.
 */
export function valuesAtPath(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.split("."), 0, out);
  return out;
}

function collect(value: unknown, segments: readonly string[], at: number, out: unknown[]): void {
  if (at === segments.length) {
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
    return;
  }
  const segment = segments[at] ?? "";
  if (isDocument(value)) {
    if (segment in value) collect(value[segment], segments, at + 1, out);
    return;
  }
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment) && Number(segment) < value.length) collect(value[Number(segment)], segments, at + 1, out);
    for (const element of value) if (isDocument(element)) collect(element, segments, at, out);
  }
}

/** The single value at a path without descending into arrays (undefined when missing). */
export function valueAt(doc: Document, segments: readonly string[]): unknown {
  let current: unknown = doc;
  for (const segment of segments) {
    if (isDocument(current)) current = current[segment];
    else if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else return undefined;
  }
  return current;
}
