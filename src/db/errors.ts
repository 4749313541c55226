import { MongoServerError } from "mongodb";

const DUPLICATE_KEY = 11000;

/** A write refused by a unique index: callers turn it into a domain outcome right where they wrote. */
export function isDuplicateKeyError(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}
