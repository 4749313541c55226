import type { Collection, Db, Document, Filter, FindCursor } from "mongodb";
import { EXTRA_SALES, type BookId } from "../sales/documents";
import { UNIQUE_PAGE_INDEX } from "../sales/indexes";

// The extra-sales documents the pattern's write-ups leave behind, before this project's numbered pages:
// what the migration converts and what reconcile reports.

/** The manual names the extra-sales collection `sales_extras` in one place; data written after it lives there. */
export const LEGACY_SALES_EXTRAS = "sales_extras";

/**
 * Extra sales written before pages existed: one document per book, without `page` or `count`,
 * holding every extra customer in `customers_purchased_extra` (the manual) or `customers_purchased` (seed 004).
 */
export interface LegacyExtraSalesDocument {
  /** The document's own id, of whatever type the old application gave it. */
  _id: BookId;
  /** The `_id` of the book in `sales` whose extra sales this holds. */
  book_id: BookId;
  /** The extra customers in purchase order, where the manual puts them; unchecked until read. */
  customers_purchased_extra?: unknown;
  /** The extra customers in purchase order, where seed 004 puts them; unchecked until read. */
  customers_purchased?: unknown;
  /** Set by the migration once it has read the entries, to say how many its pages hold. */
  migrated_entries?: number;
}

/** A legacy extra-sales document and the collection it was found in. */
export interface LegacyExtraSales {
  collection: (typeof LEGACY_COLLECTIONS)[number];
  document: LegacyExtraSalesDocument;
}

/** Where legacy extra-sales documents may be, in the order every lookup reads them. */
export const LEGACY_COLLECTIONS = [EXTRA_SALES, LEGACY_SALES_EXTRAS] as const;

/** The legacy extra-sales documents of `collection`: in extra_sales those without a page number, which every page has; in sales_extras all. */
export function legacyExtraSalesFilter(collection: LegacyExtraSales["collection"]): Filter<LegacyExtraSalesDocument> {
  return collection === EXTRA_SALES ? { page: { $exists: false } } : {};
}

/**
 * Every legacy extra-sales document of `collection`, with `projection`. In extra_sales a missing page
 * matches no index bounds, so the lookup walks the `(book_id, page)` index (where a missing page is a
 * null key) instead of scanning the collection, which mongod's notablescan would refuse; it still
 * reads one key per page, as a whole-catalog tool may. Without that index (the state reconcile
 * repairs) the only way left is a scan. sales_extras is read whole, having no index.
 */
export async function findLegacyExtraSales<T extends Document>(
  db: Db,
  collection: LegacyExtraSales["collection"],
  projection: Document,
): Promise<FindCursor<T>> {
  const walkPageIndex =
    collection === EXTRA_SALES &&
    (await legacyCollection(db, collection)
      .indexExists(UNIQUE_PAGE_INDEX)
      .catch(() => false));
  return legacyCollection(db, collection).find<T>(legacyExtraSalesFilter(collection), {
    projection,
    ...(walkPageIndex ? { hint: UNIQUE_PAGE_INDEX } : {}),
  });
}

/** Legacy data is untyped: only a list of strings is taken as customer ids. */
export function isCustomerList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}

/** The entries of a legacy extra-sales document, under whichever of the two names the seed documents use. */
export function legacyEntries(document: LegacyExtraSalesDocument): string[] | null {
  const entries = document.customers_purchased_extra ?? document.customers_purchased;
  return isCustomerList(entries) ? entries : null;
}

/** The field that holds the entries, for guards that must name it. */
export function legacyEntriesField(document: LegacyExtraSalesDocument): "customers_purchased_extra" | "customers_purchased" {
  return document.customers_purchased_extra === undefined ? "customers_purchased" : "customers_purchased_extra";
}

export function legacyCollection(db: Db, name: LegacyExtraSales["collection"]): Collection<LegacyExtraSalesDocument> {
  return db.collection<LegacyExtraSalesDocument>(name);
}
