/**
 * What one subscriber has not yet taken, bounded whatever the pace of the writes: a subscriber's socket
 * takes the next value only once the last one is sent (graphql-ws, or a shared execution's slot, awaits each
 * write), so a slow reader leaves values here, never in a growing queue.
 */
export interface SubscriberQueue<T> extends AsyncIterableIterator<T> {
  /** Ends the subscription: what it holds is dropped, and it stops listening. */
  return(): Promise<IteratorResult<T>>;
  /** Ends the subscription with this error at the next read. */
  fail(error: Error): void;
}

interface Waiter<T> {
  resolve(result: IteratorResult<T>): void;
  reject(error: Error): void;
}

/**
 * The common part of a subscriber's queue: handing a value to a read that waits, or ending it. `onEnd`
 * runs once, when the subscriber completes or its connection closes.
 */
export abstract class QueueBase<T> implements SubscriberQueue<T> {
  private waiter: Waiter<T> | undefined;
  private failure: Error | undefined;
  protected ended = false;

  constructor(private readonly onEnd: () => void) {}

  protected abstract take(): T | undefined;

  /** Whether a read waits for a value. */
  protected get reading(): boolean {
    return this.waiter !== undefined;
  }

  /** True when a read was waiting and took the value. */
  protected handOver(value: T): boolean {
    const waiter = this.waiter;
    if (!waiter) return false;
    this.waiter = undefined;
    waiter.resolve({ value, done: false });
    return true;
  }

  next(): Promise<IteratorResult<T>> {
    // Ended, what the queue still holds is dropped, as `return` and `fail` promise.
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    const value = this.take();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    this.waiter?.resolve({ value: undefined, done: true });
    this.waiter = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.failure = error;
    this.end();
    this.waiter?.reject(error);
    this.waiter = undefined;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** A value that knows how many values were dropped just before it. */
export interface Counted {
  missedBefore: number;
}

/**
 * Keeps every value in order up to `capacity`; past it the oldest is dropped, and the value that then
 * comes first carries the count of those dropped before it (`missedBefore`), so the subscriber learns
 * what it missed and where.
 */
export class BoundedQueue<T extends Counted> extends QueueBase<T> {
  private readonly waiting: T[] = [];
  private missedBeforeNext = 0;

  constructor(
    onEnd: () => void,
    private readonly capacity: number,
    private readonly onDropped: (count: number) => void,
  ) {
    super(onEnd);
  }

  put(value: T): void {
    if (this.ended) return;
    const counted = this.missedBeforeNext === 0 ? value : { ...value, missedBefore: value.missedBefore + this.missedBeforeNext };
    this.missedBeforeNext = 0;
    if (this.waiting.length === 0 && this.handOver(counted)) return;
    this.waiting.push(counted);
    if (this.waiting.length > this.capacity) {
      const oldest = this.waiting.shift()!;
      const next = this.waiting[0]!;
      this.waiting[0] = { ...next, missedBefore: next.missedBefore + oldest.missedBefore + 1 };
      this.onDropped(1);
    }
  }

  /** Tells the subscriber that `count` values were lost before the next one put, without holding any of them. */
  miss(count: number): void {
    if (this.ended || count === 0) return;
    this.missedBeforeNext += count;
    this.onDropped(count);
  }

  protected take(): T | undefined {
    return this.waiting.shift();
  }
}
