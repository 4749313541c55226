import { valueKey } from "../scenarios/subscriber-mix";

/**
 * The values a load process received, each as its book's number, its count and its arrival time: plain numbers in one
 * array, which V8 keeps unboxed, so that no object is held for each value. Held as a `book:count` string and a boxed
 * time each, tens of thousands of values survived the young generation's collections, which copied them twice and then
 * promoted them, on the cores the API under measurement shares (docs/benchmarks/analysis.md, "The load's arrivals").
 */
export class Arrivals {
  private readonly numbers: number[] = [];
  private readonly bookNumbers: Map<string, number>;

  /** `books`: every book the process may receive; a value of any other is kept apart, and has no latency. */
  constructor(private readonly books: readonly string[]) {
    this.bookNumbers = new Map(books.map((bookId, index) => [bookId, index]));
  }

  add(bookId: string, purchaseCount: number, arrivedAt: number): void {
    this.numbers.push(this.bookNumbers.get(bookId) ?? -1, purchaseCount, arrivedAt);
  }

  /** How many values were received. */
  get size(): number {
    return this.numbers.length / 3;
  }

  /** Latencies from each value's write (`writtenAt`, by `valueKey`) to its arrival, in 0.1 ms buckets: bucket → values. */
  latencyHistogram(writtenAt: Readonly<Record<string, number>>): Record<string, number> {
    const histogram: Record<string, number> = {};
    for (let index = 0; index < this.numbers.length; index += 3) {
      const bookId = this.books[this.numbers[index]!];
      const written = bookId === undefined ? undefined : writtenAt[valueKey(bookId, this.numbers[index + 1]!)];
      if (written === undefined) continue;
      const bucket = String(Math.max(0, Math.round((this.numbers[index + 2]! - written) * 10)));
      histogram[bucket] = (histogram[bucket] ?? 0) + 1;
    }
    return histogram;
  }

  /** What is held: numbers only, whatever was received. */
  held(): readonly unknown[] {
    return this.numbers;
  }
}
