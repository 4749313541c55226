import {
  BSON,
  type CommandFailedEvent,
  type CommandStartedEvent,
  type CommandSucceededEvent,
  type Document,
  type MongoClient,
} from "mongodb";
import { currentRequestContext } from "../../src/observability/request-context";

// Handshakes, heartbeats and session bookkeeping are the driver's business, not the application's round trips.
export const DRIVER_HOUSEKEEPING: ReadonlySet<string> = new Set(["hello", "isMaster", "ismaster", "endSessions", "ping"]);

/** What one operation cost on the wire, as the driver saw it. */
export interface WireCost {
  commands: number;
  /** BSON size of every command document sent. */
  bytesSent: number;
  /** BSON size of every reply document received. */
  bytesReceived: number;
}

export interface Measured<T> extends WireCost {
  ms: number;
  result: T;
}

/** One application command the monitor kept, as the driver sent it. */
export interface MonitoredCommand {
  commandName: string;
  command: Document;
  /** Its reply, once it succeeded. */
  reply?: Document;
  /** The x-request-id of the API request whose async chain sent it, if any. */
  request?: string;
  /** When it started and ended, in the order of the monitor's events: what tells which commands were in flight together. */
  startedAt: number;
  endedAt?: number;
}

export interface CommandMonitorOptions {
  /** Keep every command since the last `reset()` (the tests); off, only the counts are kept (the benchmark's long runs). */
  log?: boolean;
}

/**
 * The one count of the application's commands, for the tests and the benchmark alike, through the
 * driver's command monitoring (the client must be created with `monitorCommands: true`). BSON sizes of
 * the command and reply documents are a deterministic proxy for bytes on the wire: they leave out the
 * few bytes of message framing, and are the same on every backend.
 */
export class CommandMonitor {
  private cost: WireCost = { commands: 0, bytesSent: 0, bytesReceived: 0 };
  /** Outstanding commands by the driver's request id; the logged ones carry their entry. */
  private readonly counted = new Map<number, MonitoredCommand | undefined>();
  private lastStarted = 0;
  private events = 0;
  private logged: MonitoredCommand[] = [];
  private recording: { commandName: string; command: Document }[] | null = null;
  private readonly listeners = new Set<(command: MonitoredCommand) => void>();

  constructor(
    client: MongoClient,
    private readonly options: CommandMonitorOptions = {},
  ) {
    client.on("commandStarted", (event) => this.started(event));
    client.on("commandSucceeded", (event) => this.ended(event));
    client.on("commandFailed", (event) => this.ended(event));
  }

  /** The cost so far; subtract two snapshots to get the cost of what ran in between. */
  snapshot(): WireCost {
    return { ...this.cost };
  }

  /** The commands kept since the last reset (with `log` on), in the order they started. */
  log(): readonly MonitoredCommand[] {
    return this.logged;
  }

  reset(): void {
    this.logged = [];
  }

  /** Calls `listener` as each logged command starts, within the driver's call: a test can act while a request runs. */
  onStarted(listener: (command: MonitoredCommand) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Runs `operation` alone and reports its time and wire cost. */
  async measure<T>(operation: () => Promise<T>): Promise<Measured<T>> {
    const before = this.snapshot();
    const started = performance.now();
    const result = await operation();
    const ms = performance.now() - started;
    return { ...difference(this.snapshot(), before), ms, result };
  }

  /** Runs `operation` alone and returns the application's commands it sent, as sent, to be explained afterwards. */
  async record(operation: () => Promise<unknown>): Promise<{ commandName: string; command: Document }[]> {
    const recorded: { commandName: string; command: Document }[] = [];
    this.recording = recorded;
    try {
      await operation();
    } finally {
      this.recording = null;
    }
    return recorded;
  }

  /**
   * Resolves once no command is outstanding and none has started for `quietMs`. When a load
   * generator stops, the server still finishes the requests it holds; their commands must not be
   * counted against what is measured next. The server sends them back to back, so a quiet spell
   * much longer than one request means it is done.
   */
  async quiet(quietMs = 250): Promise<void> {
    while (this.counted.size > 0 || performance.now() - this.lastStarted < quietMs) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private started(event: CommandStartedEvent): void {
    if (DRIVER_HOUSEKEEPING.has(event.commandName)) return;
    this.lastStarted = performance.now();
    this.cost.commands += 1;
    this.cost.bytesSent += BSON.calculateObjectSize(event.command);
    this.recording?.push({ commandName: event.commandName, command: event.command });
    const entry = this.options.log ? this.logStarted(event) : undefined;
    this.counted.set(event.requestId, entry);
    if (entry) for (const listener of this.listeners) listener(entry);
  }

  private logStarted({ commandName, command }: CommandStartedEvent): MonitoredCommand {
    const request = currentRequestContext()?.requestId;
    const entry: MonitoredCommand = { commandName, command, startedAt: (this.events += 1), ...(request === undefined ? {} : { request }) };
    this.logged.push(entry);
    return entry;
  }

  private ended(event: CommandSucceededEvent | CommandFailedEvent): void {
    if (!this.counted.has(event.requestId)) return;
    const entry = this.counted.get(event.requestId);
    this.counted.delete(event.requestId);
    if (entry) entry.endedAt = this.events += 1;
    if (!("reply" in event)) return;
    this.cost.bytesReceived += BSON.calculateObjectSize(event.reply as BSON.Document);
    if (entry) entry.reply = event.reply as Document;
  }
}

export function difference(after: WireCost, before: WireCost): WireCost {
  return {
    commands: after.commands - before.commands,
    bytesSent: after.bytesSent - before.bytesSent,
    bytesReceived: after.bytesReceived - before.bytesReceived,
  };
}

/** The most of `commands` that were in flight at once. */
export function peakInFlight(commands: readonly MonitoredCommand[]): number {
  const moments = commands.flatMap(({ startedAt, endedAt }) => [
    { at: startedAt, change: 1 },
    ...(endedAt === undefined ? [] : [{ at: endedAt, change: -1 }]),
  ]);
  let inFlight = 0;
  return moments.sort((a, b) => a.at - b.at).reduce((peak, { change }) => Math.max(peak, (inFlight += change)), 0);
}
