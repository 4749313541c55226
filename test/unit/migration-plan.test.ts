import type { LegacyExtraSales } from "../../src/maintenance/legacy-extra-sales";
import { planBookMigration, type StoredBook } from "../../src/maintenance/migration";

const settings = { outlierThreshold: 3, extraSalesPageSize: 2 };
const buyers = (count: number, from = 0) => Array.from({ length: count }, (_, index) => `c${from + index}`);
const book = (fields: Partial<StoredBook> = {}): StoredBook => ({ _id: 1, title: "T", author: "A", ...fields });
const legacyDocument = (entries: string[], fields: object = {}): LegacyExtraSales => ({
  collection: "extra_sales",
  document: { _id: "legacy", book_id: 1, customers_purchased_extra: entries, ...fields },
});
const nothingElse = { legacy: [], existingPages: [] };

describe("planning the migration of one book", () => {
  it("lays out the embedded purchases, then the legacy extra sales, as recordPurchase would have stored them", () => {
    const plan = planBookMigration(
      book({ customers_purchased: buyers(4), has_extras: "true" }),
      { legacy: [legacyDocument(buyers(3, 4))], existingPages: [] },
      settings,
    );

    expect(plan).toMatchObject({
      action: "convert",
      moved: 4,
      target: {
        book: { customers_purchased: ["c0", "c1", "c2"], has_extras: true, purchase_count: 7, extra_page_size: 2 },
        pages: [
          { book_id: 1, page: 0, count: 2, customers_purchased_extra: ["c3", "c4"] },
          { book_id: 1, page: 1, count: 2, customers_purchased_extra: ["c5", "c6"] },
        ],
      },
    });
  });

  it("fills in the fields of a small legacy book without moving any purchase", () => {
    const plan = planBookMigration(book({ customers_purchased: buyers(2) }), nothingElse, settings);
    expect(plan).toMatchObject({
      action: "convert",
      moved: 0,
      target: { book: { has_extras: false, purchase_count: 2, extra_page_size: 2 }, pages: [] },
    });
  });

  it("reads seed 004's extra-sales field customers_purchased", () => {
    const legacy = legacyDocument([], { customers_purchased_extra: undefined, customers_purchased: ["late"] });
    const plan = planBookMigration(book({ customers_purchased: buyers(3) }), { legacy: [legacy], existingPages: [] }, settings);
    expect(plan).toMatchObject({ action: "convert", target: { pages: [{ customers_purchased_extra: ["late"] }] } });
  });

  it("refuses to guess an order between two legacy extra-sales documents", () => {
    const plan = planBookMigration(
      book({ customers_purchased: buyers(3) }),
      { legacy: [legacyDocument(["a"]), legacyDocument(["b"])], existingPages: [] },
      settings,
    );
    expect(plan).toEqual({ action: "skip", reason: expect.stringContaining("2 legacy extra-sales documents") });
  });

  it("refuses pages past its layout, left by a run with other settings", () => {
    const plan = planBookMigration(book({ customers_purchased: buyers(5) }), { legacy: [], existingPages: [0, 1, 2] }, settings);
    expect(plan).toEqual({ action: "skip", reason: expect.stringContaining("page 1") });
  });

  it("finishes what a stopped run committed: removes legacy documents marked as copied", () => {
    const bounded = book({ customers_purchased: buyers(3), has_extras: true, purchase_count: 5, extra_page_size: 2 });
    const legacy = legacyDocument(buyers(2, 3), { migrated_entries: 2 });
    expect(planBookMigration(bounded, { legacy: [legacy], existingPages: [] }, settings)).toEqual({
      action: "remove-copied-legacy",
      legacy: [legacy],
    });
    expect(planBookMigration(bounded, { legacy: [legacyDocument(buyers(2, 3))], existingPages: [] }, settings)).toMatchObject({
      action: "skip",
    });
  });

  it("has nothing to do for a book in the bounded form", () => {
    const bounded = book({ customers_purchased: buyers(3), has_extras: false, purchase_count: 3, extra_page_size: 1000 });
    expect(planBookMigration(bounded, nothingElse, settings)).toEqual({ action: "none" });
  });
});
