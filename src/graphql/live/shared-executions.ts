import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from "graphql";
import { SharedFeed, type LiveEvent, type LiveField, type LiveSales, type SubscriberMetrics } from "./live-sales";
import { QueueBase } from "./queues";
import { inSubscriptionSpan } from "../../observability/tracing";
import { compileOperation, type CompiledOperation } from "../execution/compiled-execution";
import type { GraphQLContext } from "../execution/context";

/** One resolved value, as every subscriber of its operation gets it, with when the write it shows was applied. */
interface Delivery {
  result: ExecutionResult;
  writtenAt?: Date | undefined;
  /** The result as a `next` message's payload, serialized once, when the first subscriber's socket is written. */
  payload?: string;
}

/**
 * A subscriber's socket, written without graphql-ws for each `next` message: the message graphql-ws would send,
 * byte for byte, around a payload serialized once for every subscriber of the value. graphql-ws still sends
 * everything else (the errors that end a subscription, `complete`, pings, closes) on the same socket, in order.
 */
export interface NextFrames {
  /** False once the socket is closing or closed: nothing more is written. */
  open(): boolean;
  /** Writes one `next` message carrying `payload`; `written` runs once the socket has handed it on, as graphql-ws's send awaits. */
  write(payload: string, written: (error?: Error) => void): void;
}

/** What the request log hears of a subscriber: its start, each value handed to its socket, and its end, once. */
export interface SubscriberLog {
  started(): void;
  delivered(): void;
  ended(): void;
}

/**
 * What a shared execution needs of the server: a fresh context for each value, the live sales that observe its
 * subscribers, and, as HTTP has it, the schema graphql-jit compiles against.
 */
export interface SharedExecutionServer {
  freshContext(): GraphQLContext;
  live: LiveSales;
  /** The schema built a second time, unwrapped by Apollo's plugins (see `CompiledExecutionOptions.compiledSchema`). */
  compiledSchema: GraphQLSchema;
  /** A result as graphql-ws's `next` message carries it (its errors formatted as `onNext` formats them). */
  payloadOf(result: ExecutionResult): string;
}

/**
 * Subscribers of a conflated field (`bookSales`, `bestsellers`) whose operations are the same (document,
 * operation name, variables) share one execution: one feed of the field's values, each value resolved once,
 * with a fresh context (nothing a loader cached for one value serves the next), and handed to every
 * subscriber's own slot, which keeps the latest value per book and nothing else. Access was checked for each
 * subscriber when it subscribed, and no resolver reads who asks, so the result cannot differ between them.
 * This is request coalescing (the glossary's "Shared execution"), as Hasura multiplexes live queries.
 */
export class SharedExecutions {
  private readonly executions = new Map<string, SharedExecution>();

  constructor(private readonly server: SharedExecutionServer) {}

  /** The subscriber's values, or the errors that refused its start (a book that does not exist); `log` hears of it once it starts. */
  async join(
    key: string,
    args: ExecutionArgs,
    field: LiveField,
    operationName: string,
    log: SubscriberLog,
    frames: NextFrames,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    let execution = this.executions.get(key);
    if (!execution) {
      execution = new SharedExecution(args, field, operationName, this.server, () => this.executions.delete(key));
      this.executions.set(key, execution);
    }
    return (await execution.join(log, frames)) ?? this.join(key, args, field, operationName, log, frames);
  }

  /** How many shared executions run: one per distinct operation subscribed to. */
  get size(): number {
    return this.executions.size;
  }
}

/** A key's latest value, and its place among every value the execution resolved. */
interface Resolved {
  delivery: Delivery;
  sequence: number;
}

/**
 * Each value resolved is kept once, as its key's latest, and a subscriber reads what it has not yet taken when it
 * asks: a new value costs what the subscribers waiting for one cost, not a step for every subscriber. Those that
 * had not taken the key's last value are counted as conflated when the new one replaces it, all at once.
 */
class SharedExecution {
  private readonly subscribers = new Set<SharedSlot>();
  /** Each key's latest value: a subscriber that joins later starts from these. */
  private readonly latest = new Map<string, Resolved>();
  /** How many subscribers have taken each key's latest value; every other one still has it to take. */
  private readonly takenLatest = new Map<string, number>();
  /** Subscribers whose read waits, with nothing left to take. */
  private readonly waiting = new Set<SharedSlot>();
  private sequence = 0;
  private readonly opened: Promise<SharedFeed<unknown> | ExecutionResult>;
  private ended = false;
  /** The operation compiled once, when its feed opens, for every value; undefined when graphql-jit cannot compile it. */
  private compiled: CompiledOperation | undefined;

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
  async join(log: SubscriberLog, frames: NextFrames): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult | undefined> {
    const feed = await this.opened;
    if (!(feed instanceof SharedFeed)) return feed;
    // The values last handed on may be older than a write acknowledged before this subscriber came.
    await feed.caughtUp();
    if (this.ended) return undefined;
    const metrics = this.server.live.subscriber(this.field);
    const slot: SharedSlot = new SharedSlot(this, metrics, log, frames, () => this.leave(slot, feed));
    this.subscribers.add(slot);
    feed.audience = this.subscribers.size;
    return slot;
  }

  /** A value's payload, serialized by the first subscriber it is written to and kept for the others. */
  payloadOf(delivery: Delivery): string {
    return (delivery.payload ??= this.server.payloadOf(delivery.result));
  }

  /** The oldest of the latest values `taken` (a subscriber's last sequence taken of each key) lacks, now taken; undefined when none. */
  takeFor(taken: Map<string, number>): Delivery | undefined {
    let oldest: [string, Resolved] | undefined;
    for (const entry of this.latest) {
      if (taken.get(entry[0]) !== entry[1].sequence && (!oldest || entry[1].sequence < oldest[1].sequence)) oldest = entry;
    }
    if (!oldest) return undefined;
    const [key, { delivery, sequence }] = oldest;
    taken.set(key, sequence);
    this.takenLatest.set(key, (this.takenLatest.get(key) ?? 0) + 1);
    return delivery;
  }

  /** The subscriber's read waits: it is offered the next value resolved. */
  wait(slot: SharedSlot): void {
    this.waiting.add(slot);
  }

  private async open(): Promise<SharedFeed<unknown> | ExecutionResult> {
    const source = await createSourceEventStream({ ...this.args, contextValue: this.server.freshContext() });
    if (!(source instanceof SharedFeed)) {
      this.end();
      return source as ExecutionResult;
    }
    const feed = source as SharedFeed<unknown>;
    this.compiled = compileOperation(this.server.compiledSchema, this.args.document, this.args.operationName);
    void this.pump(feed);
    return feed;
  }

  /** Resolves each value of the feed once, in order, for every subscriber; values that arrive meanwhile are conflated in the feed. */
  private async pump(feed: SharedFeed<unknown>): Promise<void> {
    try {
      for (;;) {
        const event = await feed.next();
        if (event.done) return;
        this.publish(event.value.key, await this.resolve(event.value));
      }
    } catch (error) {
      for (const slot of this.subscribers) slot.fail(error as Error);
      this.end();
    }
  }

  /** Makes the value its key's latest (those who had not taken the one it replaces lose it, counted once) and offers it to the waiting. */
  private publish(key: string, delivery: Delivery): void {
    const replaced = this.latest.has(key) ? this.subscribers.size - (this.takenLatest.get(key) ?? 0) : 0;
    if (replaced > 0) this.server.live.conflated(this.field, replaced);
    this.latest.set(key, { delivery, sequence: (this.sequence += 1) });
    this.takenLatest.set(key, 0);
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const slot of waiting) slot.offer();
  }

  private async resolve(event: LiveEvent<unknown>): Promise<Delivery> {
    const span = { operationName: this.operationName, subscribers: this.subscribers.size };
    const result = await inSubscriptionSpan("graphql.subscription.event", span, async () => this.execute(event));
    return { result, writtenAt: event.writtenAt };
  }

  /** The value's result: the compiled operation's, traced or not, or graphql-js' when it could not be compiled. */
  private execute(event: LiveEvent<unknown>): Promise<ExecutionResult> | ExecutionResult {
    const contextValue = this.server.freshContext();
    if (this.compiled) return this.compiled(event, contextValue, this.args.variableValues ?? {});
    return execute({ ...this.args, rootValue: event, contextValue });
  }

  private leave(slot: SharedSlot, feed: SharedFeed<unknown>): void {
    for (const [key, sequence] of slot.taken) {
      if (this.latest.get(key)?.sequence === sequence) this.takenLatest.set(key, this.takenLatest.get(key)! - 1);
    }
    this.waiting.delete(slot);
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

/**
 * One subscriber's place in a shared execution: the sequence it last took of each key, so it holds no value of its
 * own; it takes each key's latest it has not taken, the oldest first, once its socket has taken the last one, and
 * writes it to the socket itself (`NextFrames`): graphql-ws built, serialized and awaited a message of its own for each
 * value and subscriber, a promise and a copy each, and serialized the same value again for every subscriber.
 * graphql-ws reads the slot only for its end: its one read waits until the subscription completes, or fails with
 * the error that ends it. The slot reports each value it writes to /metrics and the request log itself.
 */
class SharedSlot extends QueueBase<ExecutionResult> {
  readonly taken = new Map<string, number>();
  /** A value is being written: the next is taken only once the socket has handed it on, so a slow reader conflates. */
  private writing = false;
  /** Bound once: a value's write makes no closure of its own. */
  private readonly written = (error?: Error): void => {
    this.writing = false;
    if (!error) this.offer();
  };

  constructor(
    private readonly execution: SharedExecution,
    private readonly metrics: SubscriberMetrics,
    private readonly log: SubscriberLog,
    private readonly frames: NextFrames,
    leave: () => void,
  ) {
    super(() => {
      metrics.end();
      leave();
      log.ended();
    });
    log.started();
  }

  /** graphql-ws's read: it waits for the end, while the values go to the socket; the first read starts them. */
  override next(): Promise<IteratorResult<ExecutionResult>> {
    const next = super.next();
    this.offer();
    return next;
  }

  /** A new value was resolved, or the socket took the last one: the oldest value not yet taken is written, else it waits. */
  offer(): void {
    if (this.writing || this.ended || !this.reading) return;
    if (!this.frames.open()) return;
    const delivery = this.execution.takeFor(this.taken);
    if (!delivery) return this.execution.wait(this);
    this.metrics.delivered(delivery.writtenAt);
    this.log.delivered();
    this.writing = true;
    this.frames.write(this.execution.payloadOf(delivery), this.written);
  }

  /** Nothing is handed to graphql-ws's read but the end. */
  protected take(): undefined {
    return undefined;
  }
}
