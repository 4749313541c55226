import { BSON, ObjectId } from "mongodb";
import { cursorToOffset, offsetToCursor } from "graphql-relay";
import { isAcceptableIdLength } from "../sales/book-ids";
import type { BookId } from "../sales/documents";
import { InvalidInputError } from "../sales/errors";

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
  return Buffer.from(BSON.EJSON.stringify({ id }, { relaxed: false })).toString("base64url");
}

export function parseBookCursor(cursor: string | null | undefined, argument = "after"): BookId | null {
  if (cursor == null) return null;
  let id: unknown;
  try {
    ({ id } = BSON.EJSON.parse(Buffer.from(cursor, "base64url").toString("utf8"), { relaxed: true }) as { id?: unknown });
  } catch {
    throw malformed(argument);
  }
  // A string id is held to the limits of any id a client sends, however it arrives.
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
