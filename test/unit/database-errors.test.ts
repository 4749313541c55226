import {
  MongoClientClosedError,
  MongoErrorLabel,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from "mongodb";
import { isDatabaseUnavailable, isDuplicateKeyError, isMissingHintedIndexError, TransactionTimeLimitError } from "../../src/db/errors";

const serverError = (code: number, errmsg = "refused") => new MongoServerError({ code, errmsg });

function labelled(label: string): MongoServerError {
  const error = serverError(112, "WriteConflict");
  error.addErrorLabel(label);
  return error;
}

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a network error", new MongoNetworkError("connection reset")],
    ["a network timeout", new MongoNetworkTimeoutError("timed out")],
    ["a closed topology", new MongoTopologyClosedError()],
    ["a closed client", new MongoClientClosedError()],
    [
      "Node's EPIPE, which the driver lets through when the server ends a socket under a write",
      Object.assign(new Error("This socket has been ended by the other party"), { code: "EPIPE" }),
    ],
    ["NotWritablePrimary (10107)", serverError(10107, "not primary")],
    ["PrimarySteppedDown (189)", serverError(189)],
    ["ShutdownInProgress (91)", serverError(91)],
    ["InterruptedDueToReplStateChange (11602)", serverError(11602)],
    ["LegacyNotPrimary (10058)", serverError(10058)],
    ["HostUnreachable (6)", serverError(6)],
    ["ExceededTimeLimit (262)", serverError(262)],
    [
      "a write concern not met in time (64)",
      new MongoWriteConcernError({ writeConcernError: { code: 64, errmsg: "waiting for replication timed out" }, ok: 1 }),
    ],
    ["an error labelled SystemOverloadedError", labelled(MongoErrorLabel.SystemOverloadedError)],
    ["an error labelled RetryableWriteError", labelled(MongoErrorLabel.RetryableWriteError)],
    ["an error labelled TransientTransactionError", labelled(MongoErrorLabel.TransientTransactionError)],
    ["a transaction given up after its time limit of write conflicts", new TransactionTimeLimitError(10_000)],
  ])("is true for %s", (_case, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a duplicate key", serverError(11000, "E11000 duplicate key error")],
    ["a bad value", serverError(2, "bad value")],
    ["a refused document", serverError(121, "Document failed validation")],
    ["a misused driver API", new MongoInvalidArgumentError("bad option")],
    ["an error that is not the driver's", new Error("boom")],
    ["a file system error", Object.assign(new Error("no such file"), { code: "ENOENT" })],
    ["something that is not an error", "connection reset"],
  ])("is false for %s, which retrying would not change", (_case, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe("isMissingHintedIndexError", () => {
  it("recognises mongod's refusal of a hint naming an index that does not exist", () => {
    const error = serverError(
      2,
      "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index",
    );
    expect(isMissingHintedIndexError(error)).toBe(true);
  });

  it("leaves other bad values and duplicate keys alone", () => {
    expect(isMissingHintedIndexError(serverError(2, "unknown operator: $foo"))).toBe(false);
    expect(isMissingHintedIndexError(serverError(11000, "E11000 duplicate key error"))).toBe(false);
    expect(isDuplicateKeyError(serverError(11000, "E11000 duplicate key error"))).toBe(true);
  });
});
