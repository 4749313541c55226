import {
  BREAK,
  Kind,
  visit,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from "graphql";
import { parseResolveInfo, type FieldsByTypeName, type ResolveTree } from "graphql-parse-resolve-info";
import { MAX_WINDOW_SIZE } from "../../sales/books";
import { parseCustomerCursor } from "./cursors";
import { DEFAULT_WINDOW_SIZE } from "./windows";

/** The document's fragment definitions by name, for walking an operation's selections through its spreads. */
export function fragmentsOf(document: DocumentNode): ReadonlyMap<string, FragmentDefinitionNode> {
  return new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
}

/**
 * How many of each book's embedded buyers the operation needs, for books found at `pathToBook`
 * below the field being resolved (e.g. `["edges", "node"]` under `books`): one past the end of the
 * widest `customersPurchased` window selected on them (the extra one tells the reader whether more
 * follow when the stored count cannot), Infinity (all of them) for a window counted from the end,
 * or 0 when no window is selected. Fragments, aliases,
 * `@skip`/`@include` and variables are resolved by graphql-parse-resolve-info.
 *
 * A window whose arguments are invalid counts as empty: its own resolver refuses it with the right error.
 */
export function embeddedBuyersSelected(info: GraphQLResolveInfo, pathToBook: readonly string[]): number {
  if (!mayNameBuyers(info)) return 0;
  const field = parseResolveInfo(info) as ResolveTree | null | undefined;
  if (!field) return 0;
  const books = pathToBook.reduce((trees, name) => trees.flatMap((tree) => subfields(tree.fieldsByTypeName, name)), [field]);
  const windows = books.flatMap((book) => subfields(book.fieldsByTypeName, "customersPurchased"));
  return Math.max(0, ...windows.map(windowEnd));
}

// Whether an operation (with the fragments of its document) names customersPurchased anywhere, found once per
// operation: most requests name none, and need not have their selections resolved to learn that none is selected.
const namesBuyers = new WeakMap<OperationDefinitionNode, boolean>();

function mayNameBuyers({ operation, fragments }: GraphQLResolveInfo): boolean {
  let known = namesBuyers.get(operation);
  if (known === undefined) {
    known = [operation, ...Object.values(fragments)].some((node) => namesField(node, "customersPurchased"));
    namesBuyers.set(operation, known);
  }
  return known;
}

function namesField(node: ASTNode, name: string): boolean {
  let found = false;
  visit(node, {
    Field(field) {
      if (field.name.value !== name) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** Every selection of the field `name` (under any alias) among `fields`. */
function subfields(fields: FieldsByTypeName, name: string): ResolveTree[] {
  return Object.values(fields).flatMap((byAlias) => Object.values(byAlias).filter((tree) => tree.name === name));
}

function windowEnd({ args }: ResolveTree): number {
  // Newest first (`last`, `before`) counts from the end of the list: every embedded buyer may be in the window.
  if (args["last"] != null || args["before"] != null) return Infinity;
  const first = args["first"] ?? DEFAULT_WINDOW_SIZE;
  if (typeof first !== "number" || first < 0 || first > MAX_WINDOW_SIZE) return 0;
  const after = args["after"];
  try {
    const afterPosition = parseCustomerCursor(typeof after === "string" ? after : null);
    return (afterPosition === null ? 0 : afterPosition + 1) + first + 1;
  } catch {
    return 0;
  }
}
