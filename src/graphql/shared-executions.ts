import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from "graphql";
import type { LiveEvent, LiveSales, SharedFeed } from "../sales/live/live-sales";
import type { LiveField } from "../sales/live/live-sales";
import { LatestByKey, type SubscriberQueue } from "../sales/live/queues";
import { inSubscriptionSpan } from "../observability/tracing";
import type { GraphQLContext } from "./context";

/** One resolved value, as every subscriber of its operation gets it, with when the write it shows was applied. */
interface Delivery {
  result: ExecutionResult;
  writtenAt?: Date | undefined;
}

/** What a shared execution needs of the server: a fresh context for each value, and the live sales that observe its subscribers. */
export interface SharedExecutionServer {
  freshContext(): GraphQLContext;
  live: LiveSales;
}

/**
 * Subscribers of a conflated field (`bookSales`, `bestsellers`) whose operations are the same (document,
 * operation name, variables) share one execution: one feed of the field's values, each value resolved once,
 * with a fresh context (nothing a loader cached for one value serves the next), and handed to every
 * subscriber's own slot, which keeps the latest value per book and nothing else. Access was checked for each
 * subscriber when it subscribed, and no resolver reads who asks, so the result cannot differ between them.
 */
export class SharedExecutions {
  private readonly executions = new Map<string, SharedExecution>();

  constructor(private readonly server: SharedExecutionServer) {}

  /** The subscriber's values, or the errors that refused its start (a book that does not exist). */
  async join(
    key: string,
    args: ExecutionArgs,
    field: LiveField,
    operationName: string,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    let execution = this.executions.get(key);
    if (!execution) {
      execution = new SharedExecution(args, field, operationName, this.server, () => this.executions.delete(key));
      this.executions.set(key, execution);
    }
    return (await execution.join()) ?? this.join(key, args, field, operationName);
  }

  /** How many shared executions run: one per distinct operation subscribed to. */
  get size(): number {
    return this.executions.size;
  }
}

class SharedExecution {
  /** Each subscriber's slot, and the slot as /metrics observes it. */
  private readonly subscribers = new Map<LatestByKey<Delivery>, SubscriberQueue<Delivery>>();
  /** The last value resolved for each key: a subscriber that joins later starts from these. */
  private readonly latest = new Map<string, Delivery>();
  private readonly opened: Promise<SharedFeed<unknown> | ExecutionResult>;
  private ended = false;
  /**
   * Values replaced in subscribers' slots since /metrics last heard: a value put into thousands of slots is counted
   * once, by how many it replaced, rather than once for each slot (the same total, without a counter call each).
   */
  private conflated = 0;
  private readonly countConflated = (count: number): void => {
    this.conflated += count;
  };

  constructor(
    private readonly args: ExecutionArgs,
    private readonly field: LiveField,
    private readonly operationName: string,
    private readonly server: SharedExecutionServer,
    private readonly onEnd: () => void,
  ) {
    this.opened = this.open();
  }

  /** Undefined when the execution ended while the subscriber waited for it to open: it starts another. */
  async join(): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult | undefined> {
    const feed = await this.opened;
    if (!(feed instanceof LatestByKey)) return feed;
    if (this.ended) return undefined;
    const slot: LatestByKey<Delivery> = new LatestByKey<Delivery>(() => this.leave(slot, feed), this.countConflated);
    const observed = this.server.live.observe(this.field, slot);
    this.subscribers.set(slot, observed);
    feed.audience = this.subscribers.size;
    for (const [key, delivery] of this.latest) slot.put(key, delivery);
    return new Results(observed);
  }

  private async open(): Promise<SharedFeed<unknown> | ExecutionResult> {
    const source = await createSourceEventStream({ ...this.args, contextValue: this.server.freshContext() });
    if (!(source instanceof LatestByKey)) {
      this.end();
      return source as ExecutionResult;
    }
    const feed = source as SharedFeed<unknown>;
    void this.pump(feed);
    return feed;
  }

  /** Resolves each value of the feed once, in order, for every subscriber; values that arrive meanwhile are conflated in the feed. */
  private async pump(feed: SharedFeed<unknown>): Promise<void> {
    try {
      for (;;) {
        const event = await feed.next();
        if (event.done) return;
        const delivery = await this.resolve(event.value);
        this.latest.set(event.value.key, delivery);
        for (const subscriber of this.subscribers.keys()) subscriber.put(event.value.key, delivery);
        this.reportConflated();
      }
    } catch (error) {
      for (const observed of this.subscribers.values()) observed.fail(error as Error);
      this.end();
    }
  }

  private reportConflated(): void {
    if (this.conflated === 0) return;
    this.server.live.conflated(this.field, this.conflated);
    this.conflated = 0;
  }

  private async resolve(event: LiveEvent<unknown>): Promise<Delivery> {
    const span = { operationName: this.operationName, subscribers: this.subscribers.size };
    const result = await inSubscriptionSpan("graphql.subscription.event", span, async () =>
      execute({ ...this.args, rootValue: event, contextValue: this.server.freshContext() }),
    );
    return { result, writtenAt: event.writtenAt };
  }

  private leave(slot: LatestByKey<Delivery>, feed: SharedFeed<unknown>): void {
    this.subscribers.delete(slot);
    feed.audience = this.subscribers.size;
    if (this.subscribers.size > 0) return;
    this.end();
    void feed.return();
  }

  /** Later subscribers of the operation start an execution of their own. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}

/** What graphql-ws sends: each delivery's result. A class, not closures, since thousands of idle subscribers each hold one. */
class Results implements AsyncIterableIterator<ExecutionResult> {
  constructor(private readonly deliveries: SubscriberQueue<Delivery>) {}

  async next(): Promise<IteratorResult<ExecutionResult>> {
    const next = await this.deliveries.next();
    return next.done ? { value: undefined, done: true } : { value: next.value.result, done: false };
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    await this.deliveries.return();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}
