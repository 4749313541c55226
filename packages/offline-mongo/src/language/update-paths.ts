import type { Document } from "bson";
import { ErrorCode, MongoCommandError } from "../errors";
import { compileFilter, type CompiledFilter } from "./query";
import { formatValue, isDocument, toPlain } from "../values/values";

/** A path segment that stands for array elements: `$[]` or `$[identifier]`. */
export function isAllPositional(segment: string): boolean {
  return /^\$\[\w*\]$/.test(segment);
}

/** Whether an update path pattern (with `$[]`/`$[id]` wildcards) names exactly `path`, or is a prefix of it. */
export function patternMatches(pattern: readonly string[], path: readonly string[], exact: boolean): boolean {
  if (pattern.length > path.length || (exact && pattern.length !== path.length)) return false;
  return pattern.every((segment, i) => segment === path[i] || (isAllPositional(segment) && /^\d+$/.test(path[i] ?? "")));
}

/**
 * Replaces the positional `$` with the index of the first array element the query matched, as
 * mongod does; mingo has no notion of it.
 */
export function resolvePositional(path: string, filter: Document, plainDoc: Document): string {
  const segments = path.split(".");
  const at = segments.indexOf("$");
  if (at < 0) return path;
  const arrayPath = segments.slice(0, at).join(".");
  const relevant = Object.entries(filter).filter(([key]) => key === arrayPath || key.startsWith(`${arrayPath}.`));
  let array: unknown = plainDoc;
  for (const segment of segments.slice(0, at)) array = isDocument(array) ? array[segment] : undefined;
  if (relevant.length > 0 && Array.isArray(array)) {
    const query = compileFilter(Object.fromEntries(relevant));
    const index = array.findIndex((element) => query.test(withValueAt(arrayPath.split("."), [element])));
    if (index >= 0) return [...segments.slice(0, at), String(index), ...segments.slice(at + 1)].join(".");
  }
  throw new MongoCommandError(ErrorCode.BadValue, "The positional operator did not find the match needed from the query.");
}

function withValueAt(segments: readonly string[], value: unknown): Document {
  return segments.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value) as Document;
}

/**
 * The concrete paths a pattern reaches in a document (expanding `$[]` and `$[id]`), with the value
 * currently there (undefined when it would be created). Used to validate before mingo applies.
 */
export function expandPath(
  doc: Document,
  pattern: readonly string[],
  arrayFilters: ReadonlyMap<string, CompiledFilter>,
): Array<{ path: string[]; value: unknown; parent: unknown }> {
  const out: Array<{ path: string[]; value: unknown; parent: unknown }> = [];
  const walk = (value: unknown, at: number, path: string[], parent: unknown): void => {
    if (at === pattern.length) {
      out.push({ path, value, parent });
      return;
    }
    const segment = pattern[at] ?? "";
    if (isAllPositional(segment)) {
      if (!Array.isArray(value)) {
        throw new MongoCommandError(
          ErrorCode.BadValue,
          `The path '${path.join(".")}' must exist in the document in order to apply array updates.`,
        );
      }
      const identifier = segment.slice(2, -1);
      const filter = arrayFilters.get(identifier);
      value.forEach((element, i) => {
        if (identifier === "" || filter?.test({ [identifier]: toPlain(element) })) walk(element, at + 1, [...path, String(i)], value);
      });
      return;
    }
    if (isDocument(value)) walk(value[segment], at + 1, [...path, segment], value);
    else if (Array.isArray(value) && /^\d+$/.test(segment)) walk(value[Number(segment)], at + 1, [...path, segment], value);
    else if (value === undefined) walk(undefined, at + 1, [...path, segment], value);
    else throw pathNotViable(segment, path, value);
  };
  walk(doc, 0, [], undefined);
  return out;
}

function pathNotViable(segment: string, path: readonly string[], value: unknown): MongoCommandError {
  const field = path[path.length - 1] ?? "";
  return new MongoCommandError(ErrorCode.PathNotViable, `Cannot create field '${segment}' in element {${field}: ${formatValue(value)}}`);
}

/** Compiles arrayFilters, keyed by the identifier each one filters on; unknown or unused ones are errors. */
export function compileArrayFilters(filters: readonly Document[], patterns: readonly string[]): Map<string, CompiledFilter> {
  const compiled = new Map<string, CompiledFilter>();
  for (const filter of filters) {
    const identifier = Object.keys(filter)[0]?.split(".")[0] ?? "";
    if (!/^[a-z]\w*$/.test(identifier)) {
      throw new MongoCommandError(
        ErrorCode.BadValue,
        `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${identifier}'`,
      );
    }
    compiled.set(identifier, compileFilter(filter));
  }
  const used = new Set(
    patterns.flatMap((pattern) =>
      pattern
        .split(".")
        .filter(isAllPositional)
        .map((s) => s.slice(2, -1)),
    ),
  );
  for (const identifier of used) {
    const path = patterns.find((pattern) => pattern.includes(`$[${identifier}]`)) ?? "";
    if (identifier !== "" && !compiled.has(identifier)) {
      throw new MongoCommandError(ErrorCode.BadValue, `No array filter found for identifier '${identifier}' in path '${path}'`);
    }
  }
  for (const identifier of compiled.keys()) {
    if (!used.has(identifier))
      throw new MongoCommandError(ErrorCode.FailedToParse, `The array filter for identifier '${identifier}' was not used in the update`);
  }
  return compiled;
}
