import { checkCatalogSpec, generateCatalog, type CatalogSpec } from "../../src/maintenance/demo-catalog";
import { InvalidInputError } from "../../src/sales/errors";

const spec = (changes: Partial<CatalogSpec> = {}): CatalogSpec => ({ seed: 7, books: 400, outliers: 4, maxPurchases: 20_000, ...changes });
const purchasesPerBook = (catalog: CatalogSpec) => [...generateCatalog(catalog)].map(({ customers }) => customers.length);

describe("generating a catalog", () => {
  it("yields identical books and purchases for the same seed", () => {
    expect([...generateCatalog(spec())]).toEqual([...generateCatalog(spec())]);
  });

  it("yields a different catalog for another seed", () => {
    const [first] = generateCatalog(spec());
    const [other] = generateCatalog(spec({ seed: 8 }));
    expect(other!.book.id).not.toEqual(first!.book.id);
  });

  it("gives each invented author a few invented titles in a row, never a real book's", () => {
    const books = [...generateCatalog(spec())].map(({ book }) => book);
    const booksPerAuthor = new Map<string, number>();
    for (const { author } of books) booksPerAuthor.set(author, (booksPerAuthor.get(author) ?? 0) + 1);
    expect(Math.max(...booksPerAuthor.values())).toBeLessThanOrEqual(12);
    expect(booksPerAuthor.size).toBeLessThan(books.length / 2);
    expect(books.map((book) => book.title)).not.toContain("Crime and Punishment");
    expect(books.every((book) => /^[A-Z]/.test(book.title))).toBe(true);
  });

  it("yields as many books as asked", () => {
    expect(purchasesPerBook(spec())).toHaveLength(400);
  });

  it("gives the largest outlier exactly the maximum and no book more", () => {
    const purchases = purchasesPerBook(spec());
    expect(Math.max(...purchases)).toBe(20_000);
  });

  it("makes exactly the outliers asked for stand far above the long tail", () => {
    const descending = purchasesPerBook(spec()).sort((a, b) => b - a);
    const tailBest = descending[4]!;
    expect(descending.slice(0, 4).every((count) => count > 2 * tailBest)).toBe(true);
  });

  it("gives the long tail its shape: half the books sell at most one copy", () => {
    const purchases = purchasesPerBook(spec({ outliers: 0 })).sort((a, b) => a - b);
    expect(purchases[purchases.length / 2 - 1]).toBeLessThanOrEqual(1);
    expect(purchases.at(-1)).toBeGreaterThan(50);
  });

  it("caps even the long tail at the maximum when the maximum is small", () => {
    expect(Math.max(...purchasesPerBook(spec({ outliers: 0, maxPurchases: 3 })))).toBeLessThanOrEqual(3);
  });

  it("makes no outliers when none are asked for", () => {
    expect(Math.max(...purchasesPerBook(spec({ outliers: 0 })))).toBeLessThan(20_000);
  });
});

describe("checking a catalog spec", () => {
  it.each<[Partial<CatalogSpec>, string]>([
    [{ books: -1 }, "books"],
    [{ books: 1.5 }, "books"],
    [{ outliers: 401 }, "outliers"],
    [{ maxPurchases: Number.NaN }, "maxPurchases"],
    [{ seed: -3 }, "seed"],
  ])("refuses %p, naming %s", (changes, argument) => {
    expect(() => checkCatalogSpec(spec(changes))).toThrow(expect.objectContaining({ argument }) as InvalidInputError);
  });

  it("accepts an empty catalog", () => {
    expect(() => checkCatalogSpec(spec({ books: 0, outliers: 0 }))).not.toThrow();
  });
});
