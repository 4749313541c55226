/** One caller's item, waiting for the write that carries it. */
interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Group commit for writes to one key: while a write for a key is in flight, items for that key wait,
 * and when it ends they go together (at most `maxBatch`, in arrival order) in the next write. An item
 * that finds no write in flight is written at once, alone: no timer, so a lone caller waits for
 * nothing but its own write. Every item of a batch settles with the batch's result or error.
 *
 * Written here rather than taken from a library: DataLoader and its kin batch by tick or by timer,
 * which would either miss the writes that queue during a round trip or add a wait to the lone one.
 */
export class WriteCoalescer<Item, Result> {
  // A key is present while a write for it is in flight; its array holds the items waiting for the next.
  private readonly waiting = new Map<string, Waiting<Item, Result>[]>();

  constructor(
    private readonly maxBatch: number,
    private readonly write: (items: Item[]) => Promise<Result>,
  ) {}

  /** Resolves with the result of the write that carried `item`, or rejects with its error. */
  submit(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const entry = { item, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) queue.push(entry);
      else {
        this.waiting.set(key, []);
        void this.writeBatch(key, [entry]);
      }
    });
  }

  private async writeBatch(key: string, batch: Waiting<Item, Result>[]): Promise<void> {
    try {
      const result = await this.write(batch.map((entry) => entry.item));
      for (const entry of batch) entry.resolve(result);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
    const queue = this.waiting.get(key) ?? [];
    if (queue.length === 0) this.waiting.delete(key);
    else void this.writeBatch(key, queue.splice(0, this.maxBatch));
  }
}
