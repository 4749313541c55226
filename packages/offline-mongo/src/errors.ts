import type { Document } from "bson";

/**
 * mongod's error codes by their names (mongod's `error_codes.yml`): every error this server raises names its
 * code here, never by number (a lint rule keeps it so); the name is also what the reply says in `codeName`.
 */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  HostUnreachable: 6,
  HostNotFound: 7,
  UnknownError: 8,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  IllegalOperation: 20,
  AlreadyInitialized: 23,
  LockTimeout: 24,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  LockBusy: 46,
  NoMatchingDocument: 47,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  ManualInterventionRequired: 51,
  InvalidIdField: 53,
  NotSingleValueField: 54,
  CommandNotFound: 59,
  ShardKeyNotFound: 61,
  StaleShardVersion: 63,
  WriteConcernFailed: 64,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  UnknownReplWriteConcern: 79,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  NetworkTimeout: 89,
  ShutdownInProgress: 91,
  UnsatisfiableWriteConcern: 100,
  WriteConflict: 112,
  CommandNotSupported: 115,
  ConflictingOperationInProgress: 117,
  FailedToSatisfyReadPreference: 133,
  StaleEpoch: 150,
  CannotIndexParallelArrays: 171,
  QueryPlanKilled: 175,
  PrimarySteppedDown: 189,
  InvalidIndexSpecificationOption: 197,
  ElectionInProgress: 216,
  TransactionTooOld: 225,
  RetryChangeStream: 234,
  NotImplemented: 238,
  SnapshotTooOld: 239,
  SnapshotUnavailable: 246,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  InvalidResumeToken: 260,
  ExceededTimeLimit: 262,
  OperationNotSupportedInTransaction: 263,
  PreparedTransactionInProgress: 267,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  NoQueryExecutionPlans: 291,
  SocketException: 9001,
  NotWritablePrimary: 10107,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
  InterruptedAtShutdown: 11600,
  Interrupted: 11601,
  InterruptedDueToReplStateChange: 11602,
  StaleConfig: 13388,
  NotPrimaryNoSecondaryOk: 13435,
  NotPrimaryOrSecondary: 13436,
} as const;

/**
 * Codes mongod raises at one place each and names only by number (its replies say `codeName: "Location<code>"`):
 * named here by what they refuse.
 */
export const LocationCode = {
  AtlasOnlyStage: 6047401,
  BothResumeOptions: 50865,
  ChangeStreamNeedsReplicaSet: 40573,
  ChangeStreamNotFirstStage: 40602,
  ChangeStreamStageNotDocument: 50808,
  DocumentTooLargeAfterUpdate: 17419,
  ElemMatchProjectionOnNestedField: 31275,
  ExclusionInInclusionProjection: 31254,
  IllegalSortKey: 15974,
  InvalidSliceSyntax: 28667,
  LimitNotNumber: 15957,
  LimitNotPositive: 15958,
  MissingRequiredField: 40414,
  MoreThanOneResumeOption: 40674,
  NegativeCountArgument: 51024,
  NotInTransaction: 50768,
  OpMsgWithoutDb: 40571,
  SampleNotDocument: 28745,
  SampleSizeNegative: 28747,
  SampleSizeNotNumber: 28746,
  SampleUnknownOption: 28748,
  SampleWithoutSize: 28749,
  SkipNegative: 15956,
  SkipNotNumber: 15972,
  SliceLimitNotPositive: 28724,
  UnknownField: 40415,
  UnrecognizedPipelineStage: 40324,
} as const;

const CODE_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

export function codeNameOf(code: number): string {
  // mongod names codes without a symbolic name "Location<code>".
  return CODE_NAMES.get(code) ?? `Location${code}`;
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
  return new MongoCommandError(ErrorCode.CommandNotFound, `no such command: '${name}'`);
}

/** A feature mongod has but this server does not: refused instead of answered approximately. */
export function notSupported(what: string): MongoCommandError {
  return new MongoCommandError(ErrorCode.NotImplemented, `offline server: ${what} is not supported`);
}

/** A command option that changes results and is not implemented: refused, never ignored. */
export function unsupportedOption(command: string, option: string): MongoCommandError {
  return new MongoCommandError(ErrorCode.InvalidOptions, `offline server: option '${option}' of command '${command}' is not supported`);
}
