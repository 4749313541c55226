import { emptySalesDocument } from "../../src/sales/books";
import { layOutPurchases } from "../../src/maintenance/layout";

const customers = (count: number) => Array.from({ length: count }, (_, index) => `c${index}`);
const emptyBook = emptySalesDocument({ id: 1, title: "T", author: "A" }, { extraSalesPageSize: 4 });

describe("laying out purchases in bulk", () => {
  it("embeds up to the threshold and leaves the book unflagged", () => {
    const { book, pages } = layOutPurchases(emptyBook, customers(3), { outlierThreshold: 3 });
    expect(book).toMatchObject({ customers_purchased: ["c0", "c1", "c2"], has_extras: false, purchase_count: 3 });
    expect(pages).toEqual([]);
  });

  it("moves what is past the threshold into full pages and one partial last page", () => {
    const { book, pages } = layOutPurchases(emptyBook, customers(12), { outlierThreshold: 3 });
    expect(book).toMatchObject({ customers_purchased: ["c0", "c1", "c2"], has_extras: true, purchase_count: 12 });
    expect(pages).toEqual([
      { book_id: 1, page: 0, count: 4, customers_purchased_extra: ["c3", "c4", "c5", "c6"] },
      { book_id: 1, page: 1, count: 4, customers_purchased_extra: ["c7", "c8", "c9", "c10"] },
      { book_id: 1, page: 2, count: 1, customers_purchased_extra: ["c11"] },
    ]);
  });
});
