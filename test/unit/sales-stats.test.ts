import { summarisePagesHistogram } from "../../src/sales/stats";

describe("summarising extra_sales pages per outlier", () => {
  it("gives zeros when no book has extra sales", () => {
    expect(summarisePagesHistogram([])).toEqual({ max: 0, median: 0, p99: 0 });
  });

  it("gives the one book's pages for every figure when only one book has extra sales", () => {
    expect(summarisePagesHistogram([{ pages: 3, books: 1 }])).toEqual({ max: 3, median: 3, p99: 3 });
  });

  it("takes the nearest rank, so the median of 1, 2, 2, 9 is 2", () => {
    expect(
      summarisePagesHistogram([
        { pages: 1, books: 1 },
        { pages: 2, books: 2 },
        { pages: 9, books: 1 },
      ]).median,
    ).toBe(2);
  });

  it("keeps one book in a hundred above the 99th percentile", () => {
    const histogram = [
      { pages: 1, books: 99 },
      { pages: 40, books: 1 },
    ];
    expect(summarisePagesHistogram(histogram)).toEqual({ max: 40, median: 1, p99: 1 });
  });

  it("reaches the largest value once more than one book in a hundred has it", () => {
    const histogram = [
      { pages: 1, books: 98 },
      { pages: 40, books: 2 },
    ];
    expect(summarisePagesHistogram(histogram).p99).toBe(40);
  });
});
