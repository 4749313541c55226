import type { Document } from "bson";
import { ErrorCode, LocationCode, MongoCommandError, notSupported } from "../errors";
import { compileFilter, type CompiledFilter } from "./query";
import { isDocument, isNumeric, toNumber, toPlain } from "../values/values";

type Node =
  | { readonly kind: "include" }
  | { readonly kind: "exclude" }
  | { readonly kind: "slice"; readonly skip: number | undefined; readonly limit: number }
  | { readonly kind: "elemMatch"; readonly filter: CompiledFilter }
  | { readonly kind: "tree"; readonly children: Map<string, Node> };

type Tree = Map<string, Node>;

/** A compiled find projection, applied to typed documents so every value keeps its BSON type. */
export interface Projection {
  apply(doc: Document): Document;
}

function parseLeaf(path: string, value: unknown): Node {
  if (typeof value === "boolean" || isNumeric(value)) {
    return (typeof value === "boolean" ? value : toNumber(value) !== 0) ? { kind: "include" } : { kind: "exclude" };
  }
  if (isDocument(value) && Object.keys(value).length === 1) {
    if ("$slice" in value) return parseSlice(path, value["$slice"]);
    if ("$elemMatch" in value) {
      if (path.includes("."))
        throw new MongoCommandError(LocationCode.ElemMatchProjectionOnNestedField, "Cannot use $elemMatch projection on a nested field.");
      const filter = value["$elemMatch"];
      if (!isDocument(filter)) throw new MongoCommandError(ErrorCode.BadValue, "elemMatch: Invalid argument, object required.");
      return { kind: "elemMatch", filter: compileFilter({ [path]: { $elemMatch: filter } }) };
    }
  }
  throw notSupported(`the projection expression on '${path}' (only inclusion, exclusion, $slice and $elemMatch)`);
}

function parseSlice(path: string, value: unknown): Node {
  if (isNumeric(value)) return { kind: "slice", skip: undefined, limit: toNumber(value) };
  if (Array.isArray(value) && value.length === 2) {
    const [skip, limit] = value as unknown[];
    if (isNumeric(skip) && isNumeric(limit)) {
      if (toNumber(limit) <= 0)
        throw new MongoCommandError(LocationCode.SliceLimitNotPositive, "Second argument to $slice must be positive");
      return { kind: "slice", skip: toNumber(skip), limit: toNumber(limit) };
    }
  }
  throw new MongoCommandError(LocationCode.InvalidSliceSyntax, `Invalid $slice syntax on '${path}'`);
}

function insert(tree: Tree, segments: readonly string[], node: Node): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (rest.length === 0) {
    tree.set(head, node);
    return;
  }
  const existing = tree.get(head);
  const children = existing?.kind === "tree" ? existing.children : new Map<string, Node>();
  tree.set(head, { kind: "tree", children });
  insert(children, rest, node);
}

function kinds(tree: Tree, top: boolean, out = new Set<string>()): Set<string> {
  for (const [key, node] of tree) {
    if (node.kind === "tree") kinds(node.children, false, out);
    else if (!(top && key === "_id")) out.add(node.kind);
  }
  return out;
}

export function compileProjection(spec: Document | undefined): Projection | undefined {
  if (spec === undefined || Object.keys(spec).length === 0) return undefined;
  const tree: Tree = new Map();
  for (const [path, value] of Object.entries(spec)) {
    if (path.endsWith(".$") || path.includes(".$.")) throw notSupported(`the positional projection '${path}'`);
    insert(tree, path.split("."), parseLeaf(path, value));
  }
  const used = kinds(tree, true);
  if (used.has("include") && used.has("exclude")) {
    throw new MongoCommandError(LocationCode.ExclusionInInclusionProjection, "Cannot do exclusion on field in inclusion projection");
  }
  const inclusion = used.has("include") || used.has("elemMatch") || (used.size === 0 && tree.get("_id")?.kind === "include");
  return { apply: (doc) => projectDocument(doc, tree, inclusion, true) };
}

function projectDocument(doc: Document, tree: Tree, inclusion: boolean, top: boolean): Document {
  const out: Document = {};
  for (const [key, value] of Object.entries(doc)) {
    const node = tree.get(key);
    if (node === undefined) {
      if (!inclusion || (top && key === "_id")) out[key] = value;
      continue;
    }
    const projected = projectValue(value, node, inclusion, key);
    if (projected !== undefined) out[key] = projected;
  }
  return out;
}

function projectValue(value: unknown, node: Node, inclusion: boolean, key: string): unknown {
  switch (node.kind) {
    case "include":
      return value;
    case "exclude":
      return undefined;
    case "slice":
      return Array.isArray(value) ? slice(value, node.skip, node.limit) : value;
    case "elemMatch": {
      if (!Array.isArray(value)) return undefined;
      const match = value.find((element) => node.filter.test({ [key]: [toPlain(element)] }));
      return match === undefined ? undefined : [match];
    }
    case "tree":
      return projectNested(value, node.children, inclusion, key);
  }
}

/** Sub-projections reach into documents and into arrays of documents; inclusion drops other scalars. */
function projectNested(value: unknown, tree: Tree, inclusion: boolean, key: string): unknown {
  if (isDocument(value)) return projectDocument(value, tree, inclusion, false);
  if (Array.isArray(value)) {
    return value.flatMap((element) => {
      const projected = projectNested(element, tree, inclusion, key);
      return projected === undefined ? [] : [projected];
    });
  }
  return inclusion ? undefined : value;
}

function slice(array: readonly unknown[], skip: number | undefined, limit: number): unknown[] {
  if (skip === undefined) return limit >= 0 ? array.slice(0, limit) : array.slice(limit);
  const start = skip >= 0 ? skip : Math.max(array.length + skip, 0);
  return array.slice(start, start + limit);
}
