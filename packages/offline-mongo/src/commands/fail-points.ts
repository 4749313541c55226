import { Int32, type Document } from "bson";
import { codeNameOf, ErrorCode, MongoCommandError, notSupported } from "../errors";
import { traitsOf } from "./command-table";
import { isDocument, isNumeric, toNumber } from "../values/values";

/** A client's command as `failCommand` sees it. */
export interface CommandCall {
  /** The command's name as sent (its first field). */
  readonly name: string;
  readonly body: Document;
  readonly db: string;
  /** The application name its connection gave in its handshake (`client.application.name`). */
  readonly appName: string | undefined;
}

/**
 * What `failCommand` does to a command before it runs: hold its connection for `blockMs`, then close the
 * connection without a reply, answer `error` instead of running it, or run it.
 */
export interface Interference {
  readonly blockMs: number;
  readonly then: "close" | "run" | { readonly error: Document };
}

type Mode = { readonly kind: "off" | "alwaysOn" } | { readonly kind: "times" | "skip"; left: number };

const FAILED_BY_FAIL_POINT = "Failing command via 'failCommand' failpoint";

/** Codes mongod labels RetryableWriteError on a retryable write or a commit or abort (`ErrorCodes::isRetriableError`). */
const RETRIABLE_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HostUnreachable,
  ErrorCode.HostNotFound,
  ErrorCode.NetworkTimeout,
  ErrorCode.ShutdownInProgress,
  ErrorCode.PrimarySteppedDown,
  ErrorCode.ExceededTimeLimit,
  ErrorCode.SocketException,
  ErrorCode.NotWritablePrimary,
  ErrorCode.InterruptedAtShutdown,
  ErrorCode.InterruptedDueToReplStateChange,
  ErrorCode.NotPrimaryNoSecondaryOk,
  ErrorCode.NotPrimaryOrSecondary,
]);
/** Codes mongod labels TransientTransactionError inside a transaction whatever the command (`isTransientTransactionError`). */
const TRANSIENT_CODES: ReadonlySet<number> = new Set([
  ErrorCode.LockTimeout,
  ErrorCode.WriteConflict,
  ErrorCode.SnapshotUnavailable,
  ErrorCode.PreparedTransactionInProgress,
]);
const NO_SUCH_TRANSACTION = ErrorCode.NoSuchTransaction;

/** The `data` fields mongod's `failCommand` has that would change what it fails here, and this server does not implement. */
const UNSUPPORTED_DATA = ["threadName", "tassert"];

/** One fail point's mode and data, and the times it has fired since the server started. */
class FailPoint {
  mode: Mode = { kind: "off" };
  data: Document = {};
  timesEntered = 0;

  /** Whether the mode lets the fail point fire this time, counting it when it does. */
  enter(): boolean {
    const mode = this.mode;
    if (mode.kind === "off") return false;
    if (mode.kind === "skip" && mode.left > 0) {
      mode.left -= 1;
      return false;
    }
    if (mode.kind === "times") {
      mode.left -= 1;
      if (mode.left === 0) this.mode = { kind: "off" };
    }
    this.timesEntered += 1;
    return true;
  }
}

/** Thrown when a fail point closes the command's connection without a reply (after the command ran, or instead of it). */
export class ClosedByFailPoint extends Error {
  constructor() {
    super("the fail point closes the connection");
  }
}

/** What `onPrimaryTransactionalWrite` does to a retryable write: nothing, or close its connection, the write made or (`undone`) not. */
export type TransactionalWriteFault = { readonly undone: boolean } | undefined;

/**
 * Codes mongod labels `ResumableChangeStreamError` when a change stream's getMore fails with them
 * (`ErrorLabelBuilder::isResumableChangeStreamError`): the retriable, network and retargeting errors.
 */
const RESUMABLE_CHANGE_STREAM_CODES = new Set([
  ...RETRIABLE_CODES,
  ErrorCode.StaleShardVersion,
  ErrorCode.FailedToSatisfyReadPreference,
  ErrorCode.StaleEpoch,
  ErrorCode.RetryChangeStream,
  ErrorCode.StaleConfig,
]);

/**
 * mongod's `failCommand` fail point (`configureFailPoint`, with test commands enabled): fails, blocks or cuts
 * the connection of the client commands it names, as MongoDB's drivers are tested against it. Only commands
 * from clients reach it; the server's own work (the TTL monitor) never does, as mongod never fails its
 * internal clients.
 */
export class FailPoints {
  private readonly failCommand = new FailPoint();
  /** Fails a getMore once its cursor is checked out, as a real error would (so mongod labels it). */
  private readonly failGetMore = new FailPoint();
  /** Fires on each statement of a retryable write (see `transactionalWrite`). */
  private readonly transactionalWrites = new FailPoint();
  private readonly points = new Map([
    ["failCommand", this.failCommand],
    ["failGetMoreAfterCursorCheckout", this.failGetMore],
    ["onPrimaryTransactionalWrite", this.transactionalWrites],
  ]);

  /** `aliasesOf(name)`: every name of the command `name` names, so that failing `hello` fails `isMaster` too. */
  constructor(private readonly aliasesOf: (name: string) => readonly string[]) {}

  /** `{configureFailPoint: "failCommand", mode, data}`; answers the times entered so far, as mongod. */
  configure(body: Document): Document {
    const name = body["configureFailPoint"];
    const point = this.points.get(String(name));
    if (point === undefined) throw notSupported(`the fail point '${String(name)}'`);
    const mode = parseMode(body["mode"]);
    const data = body["data"] ?? {};
    if (!isDocument(data)) throw new MongoCommandError(ErrorCode.TypeMismatch, "'data' must be a document");
    for (const field of UNSUPPORTED_DATA) if (field in data) throw notSupported(`${String(name)}'s '${field}'`);
    point.mode = mode;
    point.data = data;
    return { count: new Int32(point.timesEntered), ok: 1 };
  }

  /** `waitForFailPoint` answered at once when the fail point `name` has been entered `times` times already. */
  entered(name: string, times: number): boolean {
    return (this.points.get(name)?.timesEntered ?? 0) >= times;
  }

  /**
   * \`failGetMoreAfterCursorCheckout\`: the error a getMore fails with once it has its cursor, labelled as mongod
   * labels a change stream's (\`changeStream\`) resumable errors; undefined when the fail point does not fire.
   */
  getMoreError(changeStream: boolean): MongoCommandError | undefined {
    const code = this.failGetMore.data["errorCode"];
    if (!isNumeric(code) || !this.failGetMore.enter()) return undefined;
    const resumable = changeStream && RESUMABLE_CHANGE_STREAM_CODES.has(toNumber(code));
    return new MongoCommandError(toNumber(code), "Failing command via 'failGetMoreAfterCursorCheckout' failpoint", {
      ...(resumable ? { errorLabels: ["ResumableChangeStreamError"] } : {}),
    });
  }

  /**
   * \`onPrimaryTransactionalWrite\`, entered once per statement of a retryable write (\`statements\` of them) as
   * mongod enters it after writing each: when it fires, the connection closes without a reply, and with
   * \`failBeforeCommitExceptionCode\` the write is not made. The stand-in undoes the whole command then (mongod keeps
   * the statements before the failing one; the driver's retry makes the outcome the same).
   */
  transactionalWrite(statements: number): TransactionalWriteFault {
    const point = this.transactionalWrites;
    if (point.mode.kind === "off") return undefined;
    const undoes = point.data["failBeforeCommitExceptionCode"] !== undefined;
    let fired = false;
    for (let i = 0; i < statements; i++) {
      if (!point.enter()) continue;
      fired = true;
      if (undoes) return { undone: true };
    }
    return fired ? { undone: false } : undefined;
  }

  /** What the fail point does to `call` before it runs, or undefined when it leaves it alone (and uncounted). */
  beforeCommand(call: CommandCall): Interference | undefined {
    const data = this.failCommand.data;
    const closeConnection = data["closeConnection"] === true;
    const blockConnection = data["blockConnection"] === true;
    const errorCode = data["errorCode"];
    const failsIt = isNumeric(errorCode) && Number.isInteger(toNumber(errorCode));
    if (!(closeConnection || blockConnection || failsIt) || !this.matches(call) || !this.failCommand.enter()) return undefined;
    const blockTimeMS = data["blockTimeMS"];
    const blockMs = blockConnection && isNumeric(blockTimeMS) ? toNumber(blockTimeMS) : 0;
    if (blockConnection && !(isNumeric(blockTimeMS) && blockMs >= 0)) {
      return { blockMs: 0, then: { error: this.errorReply(call, 72, "must specify 'blockTimeMS' when 'blockConnection' is true") } };
    }
    if (closeConnection) return { blockMs, then: "close" };
    if (!failsIt) return { blockMs, then: "run" };
    const extra = data["errorExtraInfo"];
    return {
      blockMs,
      then: { error: { ...this.errorReply(call, toNumber(errorCode), FAILED_BY_FAIL_POINT), ...(isDocument(extra) ? extra : {}) } },
    };
  }

  /**
   * The reply as the fail point leaves it once `call` ran: its `writeConcernError` (a command that takes a
   * write concern, counted apart from `beforeCommand`), and `errorLabels` replaced by the fail point's own
   * when it acted on the command and the reply is an error.
   */
  afterCommand(call: CommandCall, reply: Document, interfered: boolean): Document {
    const writeConcernError = this.failCommand.data["writeConcernError"];
    const failsConcern = isDocument(writeConcernError) && waitsForWriteConcern(call) && this.matches(call) && this.failCommand.enter();
    const answered = failsConcern ? { ...reply, writeConcernError } : reply;
    const isError = answered["ok"] !== 1 || answered["writeConcernError"] !== undefined;
    if (!(interfered || failsConcern) || !isError) return answered;
    const override = this.labelsOverride();
    if (override !== undefined) return withLabels(answered, override);
    const concernCode = failsConcern ? writeConcernError["code"] : undefined;
    const retriable = isNumeric(concernCode) && RETRIABLE_CODES.has(toNumber(concernCode));
    return retriable && isRetryableWriteOrEnd(call) ? withLabels(answered, ["RetryableWriteError"]) : answered;
  }

  private errorReply(call: CommandCall, code: number, errmsg: string): Document {
    const reply = { ok: 0, errmsg, code, codeName: codeNameOf(code) };
    return withLabels(reply, this.labelsOverride() ?? defaultLabels(call, code));
  }

  private labelsOverride(): string[] | undefined {
    const labels: unknown = this.failCommand.data["errorLabels"];
    return Array.isArray(labels) ? labels.map(String) : undefined;
  }

  /** mongod's `shouldActivateFailCommandFailPoint`: never `configureFailPoint` itself; the app and namespace when named. */
  private matches(call: CommandCall): boolean {
    const data = this.failCommand.data;
    if (this.failCommand.mode.kind === "off" || call.name === "configureFailPoint") return false;
    const appName = data["appName"];
    if (typeof appName === "string" && call.appName !== appName) return false;
    const namespace = data["namespace"];
    if (typeof namespace === "string" && `${call.db}.${String(call.body[call.name])}` !== namespace) return false;
    if (data["failAllCommands"] === true) return true;
    const names = data["failCommands"];
    if (!Array.isArray(names)) return false;
    const aliases = this.aliasesOf(call.name);
    return names.some((listed) => typeof listed === "string" && (listed === call.name || aliases.includes(listed)));
  }
}

function withLabels(reply: Document, labels: readonly string[]): Document {
  const { errorLabels: _replaced, ...rest } = reply;
  return labels.length > 0 ? { ...rest, errorLabels: labels } : rest;
}

/** The labels mongod's `ErrorLabelBuilder` gives an error of `code` when the fail point names none. */
function defaultLabels(call: CommandCall, code: number): string[] {
  const inTransaction = call.body["txnNumber"] !== undefined && call.body["autocommit"] !== undefined;
  const transient = TRANSIENT_CODES.has(code) || code === NO_SUCH_TRANSACTION || (!endsTransaction(call) && RETRIABLE_CODES.has(code));
  if (inTransaction && transient) return ["TransientTransactionError"];
  return isRetryableWriteOrEnd(call) && RETRIABLE_CODES.has(code) ? ["RetryableWriteError"] : [];
}

/** A command mongod waits for a write concern after: one that takes one, and in a transaction only its commit or abort. */
function waitsForWriteConcern(call: CommandCall): boolean {
  // Inside a transaction too: mongod runs a statement through the same write-concern step (which only the commit
  // waits in), and the fail point answers there (the transactions suite's error-labels tests expect it).
  return (traitsOf(call.name)?.writeConcern ?? "refused") !== "refused";
}

function endsTransaction(call: CommandCall): boolean {
  return traitsOf(call.name)?.endsTransaction ?? false;
}

/** A retryable write (a `txnNumber` outside a transaction), or the commit or abort of a transaction. */
function isRetryableWriteOrEnd(call: CommandCall): boolean {
  if (call.body["txnNumber"] === undefined) return false;
  return call.body["autocommit"] === undefined || endsTransaction(call);
}

function parseMode(mode: unknown): Mode {
  if (mode === undefined) throw new MongoCommandError(ErrorCode.IllegalOperation, "When setting a failpoint, you must supply a 'mode'");
  if (mode === "off" || mode === "alwaysOn") return { kind: mode };
  if (typeof mode === "string") throw new MongoCommandError(ErrorCode.BadValue, `unknown mode: ${mode}`);
  if (!isDocument(mode)) throw new MongoCommandError(ErrorCode.TypeMismatch, "'mode' must be a string or an object");
  for (const kind of ["times", "skip"] as const) {
    const value = mode[kind];
    if (value === undefined) continue;
    const n = isNumeric(value) ? toNumber(value) : NaN;
    if (!Number.isInteger(n)) throw new MongoCommandError(ErrorCode.TypeMismatch, `'${kind}' option to 'mode' must be an integer`);
    if (n < 0) throw new MongoCommandError(ErrorCode.BadValue, `'${kind}' option to 'mode' must be positive`);
    return kind === "times" && n === 0 ? { kind: "off" } : { kind, left: n };
  }
  if ("activationProbability" in mode) throw notSupported("the fail point mode 'activationProbability'");
  throw new MongoCommandError(ErrorCode.BadValue, "'mode' must be 'off', 'alwaysOn', or an object with 'times' or 'skip'");
}
