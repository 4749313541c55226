import type { Document } from "bson";

/** mongod's names for the error codes this server can answer with. */
const CODE_NAMES: Readonly<Record<number, string>> = {
  1: "InternalError",
  2: "BadValue",
  6: "HostUnreachable",
  7: "HostNotFound",
  8: "UnknownError",
  9: "FailedToParse",
  13: "Unauthorized",
  14: "TypeMismatch",
  20: "IllegalOperation",
  24: "LockTimeout",
  26: "NamespaceNotFound",
  27: "IndexNotFound",
  28: "PathNotViable",
  40: "ConflictingUpdateOperators",
  43: "CursorNotFound",
  46: "LockBusy",
  47: "NoMatchingDocument",
  48: "NamespaceExists",
  50: "MaxTimeMSExpired",
  51: "ManualInterventionRequired",
  53: "InvalidIdField",
  54: "NotSingleValueField",
  59: "CommandNotFound",
  63: "StaleShardVersion",
  64: "WriteConcernFailed",
  66: "ImmutableField",
  67: "CannotCreateIndex",
  72: "InvalidOptions",
  73: "InvalidNamespace",
  79: "UnknownReplWriteConcern",
  85: "IndexOptionsConflict",
  86: "IndexKeySpecsConflict",
  89: "NetworkTimeout",
  91: "ShutdownInProgress",
  100: "UnsatisfiableWriteConcern",
  112: "WriteConflict",
  115: "CommandNotSupported",
  171: "CannotIndexParallelArrays",
  175: "QueryPlanKilled",
  189: "PrimarySteppedDown",
  197: "InvalidIndexSpecificationOption",
  117: "ConflictingOperationInProgress",
  133: "FailedToSatisfyReadPreference",
  150: "StaleEpoch",
  216: "ElectionInProgress",
  234: "RetryChangeStream",
  225: "TransactionTooOld",
  238: "NotImplemented",
  251: "NoSuchTransaction",
  256: "TransactionCommitted",
  260: "InvalidResumeToken",
  262: "ExceededTimeLimit",
  263: "OperationNotSupportedInTransaction",
  280: "ChangeStreamFatalError",
  286: "ChangeStreamHistoryLost",
  291: "NoQueryExecutionPlans",
  9001: "SocketException",
  10107: "NotWritablePrimary",
  10334: "BSONObjectTooLarge",
  11000: "DuplicateKey",
  13388: "StaleConfig",
  11600: "InterruptedAtShutdown",
  11601: "Interrupted",
  11602: "InterruptedDueToReplStateChange",
  13435: "NotPrimaryNoSecondaryOk",
  13436: "NotPrimaryOrSecondary",
};

export function codeNameOf(code: number): string {
  // mongod names codes without a symbolic name "Location<code>".
  return CODE_NAMES[code] ?? `Location${code}`;
}

/**
 * An error answered to the client as `{ok: 0, errmsg, code, codeName, ...extra}`
 * (or, inside a write batch, as one `writeErrors` entry).
 */
export class MongoCommandError extends Error {
  readonly codeName: string;

  constructor(
    readonly code: number,
    message: string,
    readonly extra: Document = {},
  ) {
    super(message);
    this.codeName = codeNameOf(code);
  }

  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

/** An error a driver retries the whole transaction on: answered as the command's error, never as one `writeErrors` entry. */
export class TransientTransactionError extends MongoCommandError {
  constructor(code: number, message: string) {
    super(code, message, { errorLabels: ["TransientTransactionError"] });
  }
}

/** mongod's answer to a command it does not have (or, without test commands enabled, does not offer). */
export function noSuchCommand(name: string): MongoCommandError {
  return new MongoCommandError(59, `no such command: '${name}'`);
}

/** A feature mongod has but this server does not: refused instead of answered approximately. */
export function notSupported(what: string): MongoCommandError {
  return new MongoCommandError(238, `offline server: ${what} is not supported`);
}

/** A command option that changes results and is not implemented: refused, never ignored. */
export function unsupportedOption(command: string, option: string): MongoCommandError {
  return new MongoCommandError(72, `offline server: option '${option}' of command '${command}' is not supported`);
}
