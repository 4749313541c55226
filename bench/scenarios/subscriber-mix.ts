/**
 * What the subscriber benchmark's shoppers watch and what they buy, as a storefront's traffic runs: one hot book
 * taking a steady stream of purchases, 100 quiet books taking one now and then, and subscribers spread over
 * product pages and bestseller shelves. Pure, so that the scenario (which writes the purchases and knows the
 * final counts) and each load process (which subscribes) work out the same mix from a subscriber's number alone.
 */

/** The books of one row of the benchmark: the hot one and the quiet ones, by id. */
export interface MixBooks {
  hot: string;
  quiet: string[];
}

/**
 * Of every 20 subscribers: 12 on the hot book's product page (where a bestseller's shoppers are), 5 on a quiet
 * book's page, 3 on a bestseller shelf of 10 books, which subscribes to them all in one `bookSales`, as the web
 * storefront's home page does.
 */
export const SUBSCRIBER_MIX = { hotPage: 12, quietPage: 5, shelf: 3 } as const;
export const SHELF_BOOKS = 10;
export const SUBSCRIBER_PERIOD = SUBSCRIBER_MIX.hotPage + SUBSCRIBER_MIX.quietPage + SUBSCRIBER_MIX.shelf;

/** The books subscriber number `index` (0-based, over every load process of a row) names in its one `bookSales`. */
export function subscribedBooks(index: number, { hot, quiet }: MixBooks): string[] {
  const slot = index % SUBSCRIBER_PERIOD;
  const round = Math.floor(index / SUBSCRIBER_PERIOD);
  if (slot < SUBSCRIBER_MIX.hotPage || quiet.length === 0) return [hot];
  if (slot < SUBSCRIBER_MIX.hotPage + SUBSCRIBER_MIX.quietPage) {
    return [quiet[(round * SUBSCRIBER_MIX.quietPage + slot - SUBSCRIBER_MIX.hotPage) % quiet.length]!];
  }
  // A shelf: the hot book first, as bestsellers are, then a run of quiet books that moves from shelf to shelf.
  const shelf = round * SUBSCRIBER_MIX.shelf + slot - SUBSCRIBER_MIX.hotPage - SUBSCRIBER_MIX.quietPage;
  const others = Math.min(SHELF_BOOKS - 1, quiet.length);
  return [hot, ...Array.from({ length: others }, (_, offset) => quiet[(shelf * others + offset) % quiet.length]!)];
}

/** One purchase of the run, due `dueMs` after its start. */
export interface PlannedPurchase {
  dueMs: number;
  bookId: string;
}

export interface PurchaseRates {
  purchasesPerSecond: number;
  quietPurchasesPerSecond: number;
  seconds: number;
}

/**
 * The run's purchases in the order they are due: the hot book's at its steady rate, and the quiet books' at theirs,
 * taken in turn (so each quiet book has at most one more purchase than another, and some in a short run have none).
 */
export function purchaseSchedule(
  { purchasesPerSecond, quietPurchasesPerSecond, seconds }: PurchaseRates,
  books: MixBooks,
): PlannedPurchase[] {
  const hot = Array.from({ length: Math.round(purchasesPerSecond * seconds) }, (_, index) => ({
    dueMs: (index * 1000) / purchasesPerSecond,
    bookId: books.hot,
  }));
  const quiet =
    books.quiet.length === 0
      ? []
      : Array.from({ length: Math.round(quietPurchasesPerSecond * seconds) }, (_, index) => ({
          dueMs: (index * 1000) / quietPurchasesPerSecond,
          bookId: books.quiet[index % books.quiet.length]!,
        }));
  // Stable: at the same due time the hot book's purchase goes first.
  return [...hot, ...quiet].sort((a, b) => a.dueMs - b.dueMs);
}

/** Each book's purchases in a schedule: from a count of 0, its final count. */
export function finalCounts(schedule: PlannedPurchase[], books: MixBooks): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries([books.hot, ...books.quiet].map((id) => [id, 0]));
  for (const { bookId } of schedule) counts[bookId] = (counts[bookId] ?? 0) + 1;
  return counts;
}

/** Values every subscriber should receive were nothing conflated: each purchase's count, once per subscriber of its book. */
export function expectedValues(subscribers: number, books: MixBooks, finals: Record<string, number>): number {
  let total = 0;
  for (let index = 0; index < subscribers; index += 1) {
    for (const bookId of subscribedBooks(index, books)) total += finals[bookId] ?? 0;
  }
  return total;
}

/** How a value is named between the scenario and the load processes: the book and the count a purchase brought it to. */
export function valueKey(bookId: string, count: number): string {
  return `${bookId}:${count}`;
}
