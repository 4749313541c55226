import type { Document } from "bson";
import type { CollectionResolver } from "mingo/types";
import { ErrorCode, MongoCommandError, TransientTransactionError, unsupportedOption } from "../errors";
import { sameKeyPattern, type Index } from "../query-engine/indexes";
import type { Collection } from "../query-engine/storage";
import { isDocument, isTruthy, stringArg } from "../values/values";
import type { CommandContext } from "./context";

/** The collection a command names in its first field (`{find: "books"}`). */
export function collectionName(body: Document, command: string): string {
  return stringArg(command, command, body[command]);
}

export function namespace(context: CommandContext, collection: string): string {
  return `${context.db}.${collection}`;
}

/** Options that change results and are not implemented: present means refused, never ignored. */
export function refuseOptions(body: Document, command: string, options: readonly string[]): void {
  for (const option of options) if (body[option] !== undefined) throw unsupportedOption(command, option);
}

/** Refuses a boolean option when it is set (false is the default behaviour and fine). */
export function refuseFlags(body: Document, command: string, flags: readonly string[]): void {
  for (const flag of flags) if (isTruthy(body[flag])) throw unsupportedOption(command, flag);
}

/** The index a hint names (by name or key pattern), `"$natural"` for a forced collection scan; a missing index is mongod's error. */
export function resolveHint(collection: Collection | undefined, hint: unknown): Index | "$natural" | undefined {
  if (hint === undefined || collection === undefined) return undefined;
  if (isDocument(hint) && "$natural" in hint) return "$natural";
  const found = collection.indexes.find((index) =>
    typeof hint === "string" ? index.spec.name === hint : isDocument(hint) && sameKeyPattern(index.spec.key, hint),
  );
  if (!found)
    throw new MongoCommandError(
      ErrorCode.BadValue,
      "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index",
    );
  return found;
}

/** Lets `$lookup` read other collections of the same database. */
export function collectionResolver(context: CommandContext): CollectionResolver {
  return (name) =>
    context.storage
      .existingCollection(context.db, name)
      ?.all()
      .map((record) => record.plain) ?? [];
}

/**
 * Runs each item of a write batch; an error becomes a `writeErrors` entry. Ordered batches stop at
 * the first error, unordered ones carry on, as mongod does (in a transaction every batch is ordered:
 * its first error ends the transaction). A transient transaction error is the command's own error.
 */
export function runWriteBatch<T>(items: readonly T[], ordered: boolean, run: (item: T, index: number) => void): Document[] {
  const writeErrors: Document[] = [];
  for (const [index, item] of items.entries()) {
    try {
      run(item, index);
    } catch (error) {
      if (!(error instanceof MongoCommandError) || error instanceof TransientTransactionError) throw error;
      writeErrors.push(error.toWriteError(index));
      if (ordered) break;
    }
  }
  return writeErrors;
}

/** mongod's `isRetryableWrite`: a write sent with a `txnNumber` outside any transaction. */
export function isRetryableWrite(body: Document): boolean {
  return body["txnNumber"] !== undefined && body["autocommit"] === undefined;
}

export function documentList(command: string, field: string, value: unknown): Document[] {
  if (!Array.isArray(value) || !value.every(isDocument)) {
    throw new MongoCommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${field}' is the wrong type, expected type 'array' of objects`,
    );
  }
  return value;
}

export function withWriteErrors(reply: Document, writeErrors: readonly Document[]): Document {
  return writeErrors.length > 0 ? { ...reply, writeErrors, ok: 1 } : { ...reply, ok: 1 };
}
