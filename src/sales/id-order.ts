import { ObjectId, type Document } from "mongodb";
import type { BookId } from "./documents";

/** The BSON types a book id may have, in the order MongoDB sorts them: numbers, then strings, then ObjectIds. */
const TYPE_ORDER = ["number", "string", "objectId"] as const;

type IdType = (typeof TYPE_ORDER)[number];

function typeOf(id: BookId): IdType {
  return typeof id === "number" ? "number" : typeof id === "string" ? "string" : "objectId";
}

/**
 * A filter on `field` for the ids after (or before) `id` in MongoDB's order. `$gt` and `$lt` only
 * compare values of one BSON type, so the ids of the types that sort after (or before) this one are
 * added explicitly to keep mixed-type catalogs in one order.
 */
export function idsBeyond(field: string, id: BookId, direction: "after" | "before"): Document {
  const rank = TYPE_ORDER.indexOf(typeOf(id));
  const otherTypes = direction === "after" ? TYPE_ORDER.slice(rank + 1) : TYPE_ORDER.slice(0, rank);
  const sameType = { [field]: { [direction === "after" ? "$gt" : "$lt"]: id } };
  if (otherTypes.length === 0) return sameType;
  return { $or: [sameType, ...otherTypes.map((type) => ({ [field]: { $type: type } }))] };
}

/** A predicate matching every id of one type, as an index range (type-bracketed as mongod's bounds are). */
const WHOLE_TYPE: Record<IdType, Document> = {
  number: { $gte: -Infinity },
  string: { $gte: "" },
  objectId: { $gte: new ObjectId("000000000000000000000000") },
};

/**
 * The ids after (or before) `id` in MongoDB's order as predicates of plain index ranges, in walking
 * order: the later ids of its own type, then every id of each type beyond it. Unlike `idsBeyond`'s
 * `$or`, each is one interval of an index, so a query on one reads no key before its start.
 */
export function idRangesBeyond(id: BookId, direction: "after" | "before"): Document[] {
  const rank = TYPE_ORDER.indexOf(typeOf(id));
  const otherTypes = direction === "after" ? TYPE_ORDER.slice(rank + 1) : TYPE_ORDER.slice(0, rank).reverse();
  return [{ [direction === "after" ? "$gt" : "$lt"]: id }, ...otherTypes.map((type) => WHOLE_TYPE[type])];
}

/**
 * MongoDB's order of book ids, for merging lists read from two collections: by type first, then by
 * value. Strings compare by their UTF-8 bytes as mongod's default (binary) comparison does, and
 * ObjectIds by their bytes, which their lowercase hex spells in the same order.
 */
export function compareBookIds(a: BookId, b: BookId): number {
  const byType = TYPE_ORDER.indexOf(typeOf(a)) - TYPE_ORDER.indexOf(typeOf(b));
  if (byType !== 0) return byType;
  // Same type from here on, so each cast only restates what the comparison of types established.
  if (typeof a === "number") return a - (b as number);
  if (typeof a === "string") return Buffer.compare(Buffer.from(a), Buffer.from(b as string));
  return Buffer.compare(a.id, (b as ObjectId).id);
}
