import { EJSON, Long, type Document } from "bson";
import net from "node:net";
import { traitsOf } from "./commands/command-table";
import { aliasesOf, runCommand } from "./commands";
import type { ReplicaSetMember, ServerParameters } from "./commands/context";
import { MAX_MESSAGE_SIZE } from "./commands/handshake";
import { ChangeLog, DEFAULT_OPLOG_SIZE_BYTES } from "./change-streams/change-log";
import { AwaitingData, CursorRegistry } from "./query-engine/cursors";
import { ErrorCode, LocationCode, MongoCommandError } from "./errors";
import { ClosedByFailPoint, FailPoints, type CommandCall, type Interference } from "./commands/fail-points";
import { ShardingSimulation, type ShardingOptions } from "./sharding/simulation";
import { HeldByTransaction, Transactions } from "./sessions/transactions";
import { interrupted, isKilled, sessionOf, sessionsKilledBy, type KilledSessions } from "./sessions/session-kills";
import { sweepExpiredDocuments } from "./query-engine/ttl";
import { isDocument } from "./values/values";
import { decodeRequest, encodeMsg, encodeReply, MessageFrames, WireProtocolError, type Request } from "./wire/messages";

/**
 * Where the server reports what it does outside any reply: a refused or broken connection (warn), each command
 * with `logCommands` (info). pino's loggers fit it, as does `console`; a library writes nowhere by itself.
 */
export interface OfflineServerLogger {
  warn(message: string): void;
  info(message: string): void;
}

export interface ServerConfig {
  readonly host: string;
  readonly logger: OfflineServerLogger;
  readonly port: number;
  readonly logCommands: boolean;
  /** How often expired documents of TTL indexes are deleted, as mongod's TTL monitor does. */
  readonly ttlMonitorIntervalMs: number;
  /** Runtime parameters (`setParameter`), shared by every connection. */
  readonly parameters: ServerParameters;
  /** Connections open at once past which new ones are closed on arrival, as mongod's `net.maxIncomingConnections`; default 1,000. */
  readonly maxIncomingConnections?: number;
  /** A replica set name (`--replSet`): the server answers as the primary of a one-member set, with transactions. */
  readonly replicaSet?: string;
  /** How long a transaction may stay open before it is aborted (mongod's `transactionLifetimeLimitSeconds`). */
  readonly transactionLifetimeMs?: number;
  /** mongod's `enableTestCommands`: `configureFailPoint` and its fail points exist only then. */
  readonly enableTestCommands?: boolean;
  /** How much history of writes a replica set keeps for change streams (mongod's oplog size). */
  readonly oplogSizeBytes?: number;
  /** Route as a mongos in front of this many simulated shards (see `ShardingSimulation`). */
  readonly sharding?: ShardingOptions;
}

/** Thrown when `failCommand` blocks a command's connection: it runs (or fails) once `ms` have passed. */
class BlockedByFailPoint extends Error {
  constructor(readonly ms: number) {
    super("the connection is blocked by the failCommand fail point");
  }
}

/**
 * A connection's commands held while the first of them waits: for a transaction to end, for the fail point's
 * `blockConnection` time, or (a getMore) for data.
 */
interface Parked {
  /** What the first one waits for: only waits mongod's `killSessions` interrupts (a sleep, an awaited getMore) are cut short. */
  readonly waitsFor: "transaction" | "failPoint" | "data";
  messages: Buffer[];
  timer: NodeJS.Timeout | undefined;
  /** Stops waiting for the next write (a getMore waiting for data). */
  cancel?: () => void;
}

/**
 * mongod's default is a million, bounded by the process's file descriptors; the stand-in shares its
 * process (and descriptors) with the API under `npm start`, so it stops well before those run out.
 */
export const DEFAULT_MAX_INCOMING_CONNECTIONS = 1_000;

const MAX_LOGGED_CHARS = 500;

/** Index keys written since the server started, named as mongod's slow-query log and profiler name them. */
export interface IndexKeysWritten {
  readonly keysInserted: number;
  readonly keysDeleted: number;
}

/** One listening server: shared storage and cursors, one loop per connection. */
export class OfflineServer {
  private readonly transactions: Transactions;
  private readonly cursors = new CursorRegistry();
  /** Commands waiting for a transaction to end, per connection, in arrival order: the first is the one that waits. */
  private readonly parked = new Map<net.Socket, Parked>();
  /** When each command that waits with a time limit first began waiting: its limit runs across waits for several transactions. */
  private readonly waitingSince = new WeakMap<Buffer, number>();
  /** When each getMore waiting for data stops waiting and answers an empty batch. */
  private readonly awaitDeadlines = new WeakMap<Buffer, number>();
  private member: ReplicaSetMember | undefined;
  /** Each open connection and its id. */
  private readonly sockets = new Map<net.Socket, number>();
  /** The session (key) each open cursor was opened in, by cursor id: `killSessions` kills a session's cursors. */
  private readonly cursorSessions = new Map<string, string>();
  private readonly listener = net.createServer((socket) => this.accept(socket));
  private nextConnectionId = 1;
  private nextRequestId = 1;
  private ttlMonitor: NodeJS.Timeout | undefined;
  private readonly failPoints: FailPoints | undefined;
  private readonly sharding: ShardingSimulation | undefined;
  /** Each connection's application name, from its handshake: `failCommand` can be limited to one. */
  private readonly appNames = new Map<number, string>();
  /**
   * What the fail point decided for each message it has seen (null: nothing), so that a command run again
   * after its connection waited (blocked, or parked behind a transaction) is not counted twice.
   */
  private readonly interferences = new WeakMap<Buffer, Interference | null>();

  constructor(private readonly config: ServerConfig) {
    const history = config.replicaSet === undefined ? undefined : new ChangeLog(config.oplogSizeBytes ?? DEFAULT_OPLOG_SIZE_BYTES);
    this.transactions = new Transactions(config.transactionLifetimeMs, history);
    this.failPoints = config.enableTestCommands ? new FailPoints(aliasesOf) : undefined;
    this.sharding = config.sharding === undefined ? undefined : new ShardingSimulation(config.sharding);
    this.listener.maxConnections = config.maxIncomingConnections ?? DEFAULT_MAX_INCOMING_CONNECTIONS;
    this.listener.on("drop", () =>
      config.logger.warn(`connection refused because too many open connections: ${this.listener.maxConnections}`),
    );
  }

  /** Listens on `port` (by default the configured one); after `stop()`, listening again keeps the stored data. */
  listen(port = this.config.port): Promise<number> {
    return new Promise((resolve, reject) => {
      this.listener.once("error", reject);
      this.listener.listen(port, this.config.host, () => {
        const address = this.listener.address();
        const listening = typeof address === "object" && address !== null ? address.port : this.config.port;
        const hostInAddress = this.config.host.includes(":") ? `[${this.config.host}]` : this.config.host;
        if (this.config.replicaSet !== undefined) this.member = { name: this.config.replicaSet, me: `${hostInAddress}:${listening}` };
        this.startTtlMonitor();
        resolve(listening);
      });
    });
  }

  /** Records read or written so far, in the committed data and every transaction's snapshot (see `StorageMeter`). */
  get recordsVisited(): number {
    return this.transactions.live.meter.visited;
  }

  /** Index keys inserted and deleted so far, in the committed data and every transaction's snapshot (see `StorageMeter`). */
  get indexKeysWritten(): IndexKeysWritten {
    const { keysInserted, keysDeleted } = this.transactions.live.meter;
    return { keysInserted, keysDeleted };
  }

  /** What the replica set's history of writes holds now, in bytes (0 on a standalone, which keeps none). */
  get historyBytes(): number {
    return this.transactions.history?.size ?? 0;
  }

  stop(): Promise<void> {
    clearInterval(this.ttlMonitor);
    return new Promise((resolve) => {
      this.listener.close(() => resolve());
      for (const socket of this.sockets.keys()) socket.destroy();
    });
  }

  /** Runs between commands (one event-loop turn each), so a sweep never interleaves with one. Unref'd: it never keeps a process alive. */
  private startTtlMonitor(): void {
    this.ttlMonitor = setInterval(() => sweepExpiredDocuments(this.transactions.live, new Date()), this.config.ttlMonitorIntervalMs);
    this.ttlMonitor.unref();
  }

  private accept(socket: net.Socket): void {
    const connectionId = this.nextConnectionId++;
    this.sockets.set(socket, connectionId);
    socket.setNoDelay(true);
    const frames = new MessageFrames(MAX_MESSAGE_SIZE);
    socket.on("data", (chunk: Buffer) => {
      try {
        for (const message of frames.push(chunk)) {
          if (socket.destroyed) return;
          this.handle(socket, message, connectionId);
        }
      } catch (error) {
        if (!(error instanceof WireProtocolError)) throw error;
        this.config.logger.warn(`conn${connectionId} closed: ${error.message}`);
        socket.destroy();
      }
    });
    // A client vanishing mid-conversation only ends its own connection.
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.sockets.delete(socket);
      const parked = this.parked.get(socket);
      clearTimeout(parked?.timer);
      parked?.cancel?.();
      this.parked.delete(socket);
      this.appNames.delete(connectionId);
    });
  }

  /**
   * Decode, run and reply without yielding, so commands never interleave. A command that must wait for a
   * transaction to end is parked with every later message of its connection, and all run once it ends.
   */
  private handle(socket: net.Socket, message: Buffer, connectionId: number): void {
    const waiting = this.parked.get(socket);
    if (waiting !== undefined) {
      waiting.messages.push(message);
      return;
    }
    try {
      this.answer(socket, message, connectionId);
    } catch (error) {
      if (error instanceof AwaitingData) {
        this.awaitData(socket, message, connectionId, error.deadline);
        return;
      }
      if (error instanceof BlockedByFailPoint) {
        const parked: Parked = { waitsFor: "failPoint", messages: [message], timer: undefined };
        this.parked.set(socket, parked);
        parked.timer = setTimeout(() => this.resume(socket, connectionId, parked), error.ms);
        return;
      }
      if (!(error instanceof HeldByTransaction)) throw error;
      this.park(socket, message, connectionId, error);
    }
  }

  /**
   * Holds the connection's commands until the transaction ends, or until the waiting command's
   * `maxTimeMS` (counted from when it first waited) runs out: then it fails with MaxTimeMSExpired.
   */
  private park(socket: net.Socket, message: Buffer, connectionId: number, held: HeldByTransaction): void {
    const parked: Parked = { waitsFor: "transaction", messages: [message], timer: undefined };
    this.parked.set(socket, parked);
    held.transaction.onEnd(() => this.resume(socket, connectionId, parked));
    if (held.maxTimeMS === undefined) return;
    const waitingSince = this.waitingSince.get(message) ?? Date.now();
    this.waitingSince.set(message, waitingSince);
    parked.timer = setTimeout(
      () => {
        const [waiting = message, ...later] = parked.messages;
        parked.messages = later;
        this.answer(socket, waiting, connectionId, new MongoCommandError(ErrorCode.MaxTimeMSExpired, "operation exceeded time limit"));
        this.resume(socket, connectionId, parked);
      },
      waitingSince + held.maxTimeMS - Date.now(),
    );
  }

  /**
   * Holds a getMore that found no data until the next write or its deadline, whichever comes first, then
   * answers it again: an idle stream costs a timer and a waiter, nothing more.
   */
  private awaitData(socket: net.Socket, message: Buffer, connectionId: number, deadline: number): void {
    const history = this.transactions.history;
    this.awaitDeadlines.set(message, deadline);
    const parked: Parked = { waitsFor: "data", messages: [message], timer: undefined };
    this.parked.set(socket, parked);
    const cancel = history?.waitForAppend(() => {
      clearTimeout(parked.timer);
      // Later, not now: the write that woke it is still being answered.
      setImmediate(() => this.resume(socket, connectionId, parked));
    });
    parked.timer = setTimeout(
      () => {
        cancel?.();
        this.resume(socket, connectionId, parked);
      },
      Math.max(0, deadline - Date.now()),
    );
    parked.cancel = cancel;
  }

  private resume(socket: net.Socket, connectionId: number, parked: Parked): void {
    if (this.parked.get(socket) !== parked) return;
    clearTimeout(parked.timer);
    this.parked.delete(socket);
    for (const message of parked.messages) if (!socket.destroyed) this.handle(socket, message, connectionId);
  }

  /** Runs the request and writes its reply; `refusal` answers it with that error instead. */
  private answer(socket: net.Socket, message: Buffer, connectionId: number, refusal?: MongoCommandError): void {
    let request: Request;
    try {
      request = decodeRequest(message);
    } catch (error) {
      this.config.logger.warn(`conn${connectionId} closed: ${error instanceof Error ? error.message : String(error)}`);
      socket.destroy();
      return;
    }
    const requestId = this.nextRequestId++;
    if (request.kind === "query") {
      const db = request.collection.endsWith(".$cmd") ? request.collection.slice(0, -".$cmd".length) : undefined;
      const reply =
        db === undefined
          ? { $err: "offline server: OP_QUERY is only supported for commands", code: ErrorCode.NotImplemented, ok: 0 }
          : this.run(request.query, db, connectionId, message, refusal);
      if (reply === undefined) socket.destroy();
      else socket.write(encodeReply(requestId, request.header.requestId, reply));
      return;
    }
    const db = request.body["$db"];
    const reply =
      typeof db === "string"
        ? this.run(request.body, db, connectionId, message, refusal)
        : new MongoCommandError(LocationCode.OpMsgWithoutDb, "OP_MSG requests require a $db argument").toReply();
    if (reply === undefined) socket.destroy();
    else if (!request.moreToCome) socket.write(encodeMsg(requestId, request.header.requestId, reply));
  }

  /**
   * Runs one command and returns its reply, or undefined when the fail point closes the connection instead;
   * `refusal` (already logged when the command was first tried) answers it instead.
   */
  private run(body: Document, db: string, connectionId: number, message: Buffer, refusal?: MongoCommandError): Document | undefined {
    if (refusal) return this.withClusterTime(refusal.toReply());
    if (this.config.logCommands) {
      const text = EJSON.stringify(body, { relaxed: true });
      this.config.logger.info(`conn${connectionId} ${db} ${text.length > MAX_LOGGED_CHARS ? `${text.slice(0, MAX_LOGGED_CHARS)}…` : text}`);
    }
    const call: CommandCall = { name: Object.keys(body)[0] ?? "", body, db, appName: this.appNames.get(connectionId) };
    const interference = this.interferenceWith(call, message);
    if (interference !== undefined && interference.blockMs > 0) {
      this.interferences.set(message, { ...interference, blockMs: 0 });
      throw new BlockedByFailPoint(interference.blockMs);
    }
    if (interference?.then === "close") return undefined;
    if (typeof interference?.then === "object") return this.withClusterTime(interference.then.error);
    this.rememberAppName(call, connectionId);
    const routed = this.sharding?.before(body, db, this.transactions.live);
    if (routed !== undefined) return this.withClusterTime(routed);
    let reply: Document;
    try {
      reply = runCommand(body, {
        parameters: this.config.parameters,
        storage: this.transactions.live,
        transactions: this.transactions,
        replicaSet: this.member,
        inTransaction: false,
        cursors: this.cursors,
        failPoints: this.failPoints,
        db,
        connectionId,
        ...(this.awaitDeadlines.has(message) ? { awaitDeadline: this.awaitDeadlines.get(message) } : {}),
      });
    } catch (error) {
      if (error instanceof ClosedByFailPoint) return undefined;
      throw error;
    }
    this.sharding?.after(body, db, reply);
    this.rememberCursorSession(call, reply);
    const killed = reply["ok"] === 1 ? sessionsKilledBy(call.name, body) : undefined;
    if (killed !== undefined) this.killSessionWork(killed);
    return this.withClusterTime(this.failPoints?.afterCommand(call, reply, interference !== undefined) ?? reply);
  }

  /** Notes which session a cursor the reply opened (or still keeps open) belongs to, and forgets exhausted ones. */
  private rememberCursorSession({ body }: CommandCall, reply: Document): void {
    const cursor: unknown = reply["cursor"];
    const id: unknown = isDocument(cursor) ? cursor["id"] : undefined;
    if (!(id instanceof Long)) return;
    const requested = body["getMore"];
    if (id.isZero()) {
      if (requested instanceof Long) this.cursorSessions.delete(requested.toString());
      return;
    }
    const session = sessionOf(body);
    if (session !== undefined && !this.cursorSessions.has(id.toString())) this.cursorSessions.set(id.toString(), session);
  }

  /**
   * What mongod's `killSessions` does besides aborting the sessions' transactions (which the command did):
   * their operations are interrupted (`killSessionsLocalKillOps`) and their cursors killed. Here the operations
   * in flight are the parked ones: a command the fail point's `blockConnection` holds (mongod sleeps
   * interruptibly there) and a getMore awaiting data answer 11601 at once. A command waiting for a transaction
   * is left to run once the transaction (aborted by the kill) has ended: on mongod the abort releases its lock
   * before the operations are killed, so either outcome can happen there, and running it is one of them.
   */
  private killSessionWork(killed: KilledSessions): void {
    for (const [id, session] of this.cursorSessions)
      if (isKilled(killed, session)) {
        this.cursors.kill(Long.fromString(id));
        this.cursorSessions.delete(id);
      }
    for (const [socket, parked] of this.parked) {
      const [waiting] = parked.messages;
      if (parked.waitsFor === "transaction" || waiting === undefined || !isKilled(killed, sessionOfMessage(waiting))) continue;
      this.interrupt(socket, parked);
    }
  }

  /** Answers the parked connection's waiting command with Interrupted, then runs its later commands (after this one's reply). */
  private interrupt(socket: net.Socket, parked: Parked): void {
    const connectionId = this.sockets.get(socket) ?? 0;
    clearTimeout(parked.timer);
    parked.cancel?.();
    const [waiting, ...later] = parked.messages;
    parked.messages = later;
    if (waiting !== undefined) this.answer(socket, waiting, connectionId, interrupted());
    setImmediate(() => this.resume(socket, connectionId, parked));
  }

  /** The fail point's decision for this message: taken once, when the message is first run. */
  private interferenceWith(call: CommandCall, message: Buffer): Interference | undefined {
    if (this.failPoints === undefined) return undefined;
    let decided = this.interferences.get(message);
    if (decided === undefined) {
      decided = this.failPoints.beforeCommand(call) ?? null;
      this.interferences.set(message, decided);
    }
    return decided ?? undefined;
  }

  /** A handshake names the connection's application (`client.application.name`), which `failCommand` can target. */
  private rememberAppName({ name, body }: CommandCall, connectionId: number): void {
    if (this.failPoints === undefined || traitsOf(name)?.handshake !== true) return;
    const client: unknown = body["client"];
    const application: unknown = isDocument(client) ? client["application"] : undefined;
    const appName: unknown = isDocument(application) ? application["name"] : undefined;
    if (typeof appName === "string") this.appNames.set(connectionId, appName);
  }

  /** A replica-set member's replies carry the cluster time, which drivers send back (gossip) and read causally after. */
  private withClusterTime(reply: Document): Document {
    return this.member === undefined ? reply : { ...reply, ...this.transactions.clusterTime() };
  }
}

/** The session a framed command names in its `lsid`, if it decodes and names one. */
function sessionOfMessage(message: Buffer): string | undefined {
  try {
    const request = decodeRequest(message);
    return sessionOf(request.kind === "query" ? request.query : request.body);
  } catch {
    return undefined;
  }
}
