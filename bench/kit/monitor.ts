import { BSON, type CommandStartedEvent, type CommandSucceededEvent, type Document, type MongoClient } from "mongodb";

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

// Handshakes, heartbeats and session bookkeeping are the driver's business, not the application's round trips.
const DRIVER_HOUSEKEEPING = new Set(["hello", "isMaster", "ismaster", "endSessions", "ping"]);

/**
 * Counts the application's commands and their bytes through the driver's command monitoring
 * (the client must be created with `monitorCommands: true`). BSON sizes of the command and reply
 * documents are a deterministic proxy for bytes on the wire: they leave out the few bytes of
 * message framing, and are the same on every backend.
 */
export class CommandMonitor {
  private cost: WireCost = { commands: 0, bytesSent: 0, bytesReceived: 0 };
  private readonly counted = new Set<number>();
  private lastStarted = 0;
  private recording: { commandName: string; command: Document }[] | null = null;

  constructor(client: MongoClient) {
    client.on("commandStarted", (event) => this.started(event));
    client.on("commandSucceeded", (event) => this.succeeded(event));
    client.on("commandFailed", (event) => void this.counted.delete(event.requestId));
  }

  /** The cost so far; subtract two snapshots to get the cost of what ran in between. */
  snapshot(): WireCost {
    return { ...this.cost };
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
    this.counted.add(event.requestId);
    this.lastStarted = performance.now();
    this.cost.commands += 1;
    this.cost.bytesSent += BSON.calculateObjectSize(event.command);
    this.recording?.push({ commandName: event.commandName, command: event.command });
  }

  private succeeded(event: CommandSucceededEvent): void {
    if (!this.counted.delete(event.requestId)) return;
    this.cost.bytesReceived += BSON.calculateObjectSize(event.reply as BSON.Document);
  }
}

export function difference(after: WireCost, before: WireCost): WireCost {
  return {
    commands: after.commands - before.commands,
    bytesSent: after.bytesSent - before.bytesSent,
    bytesReceived: after.bytesReceived - before.bytesReceived,
  };
}
