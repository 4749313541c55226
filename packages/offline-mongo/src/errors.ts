import type { Document } from "bson";

/** mongod's names for the error codes this server can answer with. */
const CODE_NAMES: Readonly<Record<number, string>> = {
  2: "BadValue",
  9: "FailedToParse",
  13: "Unauthorized",
  14: "TypeMismatch",
  20: "IllegalOperation",
  26: "NamespaceNotFound",
  27: "IndexNotFound",
  28: "PathNotViable",
  40: "ConflictingUpdateOperators",
  43: "CursorNotFound",
  48: "NamespaceExists",
  50: "MaxTimeMSExpired",
  53: "InvalidIdField",
  54: "NotSingleValueField",
  59: "CommandNotFound",
  66: "ImmutableField",
  67: "CannotCreateIndex",
  72: "InvalidOptions",
  73: "InvalidNamespace",
  85: "IndexOptionsConflict",
  86: "IndexKeySpecsConflict",
  112: "WriteConflict",
  115: "CommandNotSupported",
  171: "CannotIndexParallelArrays",
  175: "QueryPlanKilled",
  197: "InvalidIndexSpecificationOption",
  117: "ConflictingOperationInProgress",
  225: "TransactionTooOld",
  238: "NotImplemented",
  251: "NoSuchTransaction",
  256: "TransactionCommitted",
  263: "OperationNotSupportedInTransaction",
  291: "NoQueryExecutionPlans",
  10334: "BSONObjectTooLarge",
  11000: "DuplicateKey",
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

/** A feature mongod has but this server does not: refused instead of answered approximately. */
export function notSupported(what: string): MongoCommandError {
  return new MongoCommandError(238, `offline server: ${what} is not supported`);
}

/** A command option that changes results and is not implemented: refused, never ignored. */
export function unsupportedOption(command: string, option: string): MongoCommandError {
  return new MongoCommandError(72, `offline server: option '${option}' of command '${command}' is not supported`);
}
