import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoDriverError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import type { ErrorCode } from "../error-codes";

const DUPLICATE_KEY = 11000;

/** A write refused by a unique index: callers turn it into a domain outcome right where they wrote. */
export function isDuplicateKeyError(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

const BAD_VALUE = 2;

/** True when the server refused an operation because the index its `hint` names does not exist. */
export function isMissingHintedIndexError(error: unknown): error is MongoServerError {
  return (
    error instanceof MongoServerError &&
    error.code === BAD_VALUE &&
    /hint provided does not correspond to an existing index/.test(error.message)
  );
}

/**
 * Refused by this service, not by MongoDB: an index a write relies on for its correctness is missing
 * (the database came back without it, or it was dropped), so the write is refused rather than allowed to
 * corrupt a book. Retryable: the indexes are re-created as soon as the service notices (see `openDatabase`).
 */
export class MissingIndexError extends Error {
  override readonly name = "MissingIndexError";
  readonly code: ErrorCode = "DATABASE_NOT_READY";
  constructor(what: string, index: string, options?: ErrorOptions) {
    super(`${what} is refused until the database's index ${index} is back in place; try again shortly.`, options);
  }
}

/**
 * The unique page index is held back while `npm run reconcile -- --fix` is rewriting a book's pages
 * (its journal exists): with the index back, purchases would append to pages the rewrite is about to
 * write, and the rewrite could no longer finish. Until reconcile finishes, extra sales are refused
 * with DATABASE_NOT_READY and /readyz answers 503.
 */
export class PageRepairInProgressError extends Error {
  override readonly name = "PageRepairInProgressError";
  constructor(index: string) {
    super(`The index ${index} waits for a page repair cut off half-way: finish it with \`npm run reconcile -- --fix\`.`);
  }
}

/**
 * A transaction still meeting write conflicts (or other transient errors) after its time limit: the
 * documents it writes are too contended for now. Its retries stop there rather than run on after the
 * request has been answered; nothing of it was committed, so a retry (with the same purchaseId) is safe.
 */
export class TransactionTimeLimitError extends Error {
  override readonly name = "TransactionTimeLimitError";
  constructor(timeLimitMs: number) {
    super(`A transaction was still meeting write conflicts after ${timeLimitMs} ms; nothing of it was written.`);
  }
}

/**
 * A transaction's commit that failed in a way the driver could not classify, and failed again when
 * committed once more: the transaction may or may not have committed, so the request is answered
 * DATABASE_UNAVAILABLE, which a keyed purchase's retry with the same purchaseId resolves (see `inTransaction`).
 */
export class CommitOutcomeUnknownError extends Error {
  override readonly name = "CommitOutcomeUnknownError";
  constructor(options: ErrorOptions) {
    super("A transaction's commit was cut off and whether it committed is unknown; retry with the same purchaseId.", options);
  }
}

// The server codes the driver itself retries (its RETRYABLE_READ_ERROR_CODES, which retryable writes share) or
// takes as "not primary" (LegacyNotPrimary), and a write concern that replicas did not meet in time:
// a server that cannot be reached, is shutting down, stepping down, not (yet) primary, or overloaded.
const SERVER_UNAVAILABLE = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  64, // WriteConcernTimeout: applied on the primary, not replicated in time (a retry with the same purchaseId is safe)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

// Labels the server or the driver put on an error that says "not now": retry it, the write was not refused.
const UNAVAILABLE_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.UnknownTransactionCommitResult,
  MongoErrorLabel.SystemOverloadedError,
  MongoErrorLabel.RetryableError,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.ResetPool,
];

// Driver errors the driver does not export as classes (src/cmap/errors.ts), known by their stable names.
const UNEXPORTED_UNAVAILABLE = new Set(["MongoWaitQueueTimeoutError", "MongoPoolClosedError"]);

/** No pooled connection came free within waitQueueTimeoutMS: the pool is busy, the server may be fine. */
export function isWaitQueueTimeout(error: unknown): boolean {
  return error instanceof MongoError && error.name === "MongoWaitQueueTimeoutError";
}

// Node's own socket errors, which the driver lets through unwrapped when the server ends a socket under a write.
const SOCKET_ERROR_CODES = new Set(["EPIPE", "ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

function isSocketError(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" && SOCKET_ERROR_CODES.has(error.code)
  );
}

/**
 * True when `error` says the database could not be reached, is overloaded or is going away (network
 * errors and timeouts, Node's socket errors, a cleared or closed pool, no pooled connection within waitQueueTimeoutMS, no
 * server selected, shutting down, stepping down, not primary): the request may succeed if retried
 * later, rather than being refused for what it asks.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isSocketError(error) || error instanceof TransactionTimeLimitError || error instanceof CommitOutcomeUnknownError) return true;
  // insertMany and bulkWrite wrap whatever stopped them, a lost connection included, in a MongoBulkWriteError (a "server" error without a code).
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error) return isDatabaseUnavailable(error.errorResponse);
  if (!(error instanceof MongoError)) return false;
  if (UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (error instanceof MongoServerError) return typeof error.code === "number" && SERVER_UNAVAILABLE.has(error.code);
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoNotConnectedError ||
    (error instanceof MongoDriverError && UNEXPORTED_UNAVAILABLE.has(error.name))
  );
}
