import { BSON, ObjectId } from "mongodb";
import { cursorToOffset, offsetToCursor } from "graphql-relay";
import { isAcceptableIdLength } from "../../sales/book-ids";
import { browseScope, isOrderKey, orderKeyOf, type CatalogBook, type CatalogBrowse, type CatalogPosition } from "../../sales/catalog";
import type { BookId } from "../../sales/documents";
import { InvalidInputError } from "../../sales/errors";

/**
 * A purchase's cursor is its position in the book's purchase list. Relay's offset cursors are
 * only safe on lists that never shift, which this one is: purchases are only ever appended.
 */
export function customerCursor(position: number): string {
  return offsetToCursor(position);
}

/** The position the cursor names (to read after or before it), or null when there is none. */
export function parseCustomerCursor(cursor: string | null | undefined, argument = "after"): number | null {
  if (cursor == null) return null;
  const position = cursorToOffset(cursor);
  // cursorToOffset parses leniently; only a cursor this API could have issued is accepted.
  if (!Number.isSafeInteger(position) || position < 0 || offsetToCursor(position) !== cursor) {
    throw malformed(argument);
  }
  return position;
}

/** A book's cursor carries its `_id` with its BSON type, so that paging by `_id` works across id types. */
export function bookCursor(id: BookId): string {
  return encode({ id });
}

export function parseBookCursor(cursor: string | null | undefined, argument = "after"): BookId | null {
  if (cursor == null) return null;
  return checkedId(decode(cursor, argument).id, argument);
}

/**
 * A book's cursor in a browse of the catalog: the browse's scope (order, filter and search), the book's
 * order key and its id with their BSON types. Opaque to clients, and checked against the browse it is used in.
 */
export function catalogCursor(browse: CatalogBrowse, book: CatalogBook): string {
  const key = orderKeyOf(book, browse.field);
  return encode({ scope: browseScope(browse), ...(key === undefined ? {} : { key }), id: book._id });
}

/** The position a catalog cursor names, or null when there is none; a cursor of another browse is refused. */
export function parseCatalogCursor(cursor: string | null | undefined, browse: CatalogBrowse, argument: string): CatalogPosition | null {
  if (cursor == null) return null;
  const { scope, key, id } = decode(cursor, argument);
  if (typeof scope !== "string") throw malformed(argument);
  if (scope !== browseScope(browse)) {
    throw new InvalidInputError(
      `${argument} is a cursor of another orderBy, filter or search; pass the cursors of a list only with the arguments that listed it.`,
      argument,
    );
  }
  if (!isOrderKey(browse.field, key)) throw malformed(argument);
  return { key: key as CatalogPosition["key"], id: checkedId(id, argument) };
}

function encode(value: Record<string, unknown>): string {
  return Buffer.from(BSON.EJSON.stringify(value, { relaxed: false })).toString("base64url");
}

function decode(cursor: string, argument: string): Record<string, unknown> {
  try {
    const value: unknown = BSON.EJSON.parse(Buffer.from(cursor, "base64url").toString("utf8"), { relaxed: true });
    if (typeof value === "object" && value !== null) return value as Record<string, unknown>;
  } catch {
    // Falls through to the same refusal as a cursor that parses to something else.
  }
  throw malformed(argument);
}

/** A string id is held to the limits of any id a client sends, however it arrives. */
function checkedId(id: unknown, argument: string): BookId {
  if (typeof id === "string" && isAcceptableIdLength(id)) return id;
  if ((typeof id === "number" && Number.isFinite(id)) || id instanceof ObjectId) return id;
  throw malformed(argument);
}

function malformed(argument: string): InvalidInputError {
  return new InvalidInputError(
    `${argument} is not a cursor this API issued; pass a startCursor, endCursor or edge cursor unchanged.`,
    argument,
  );
}
