import { ClientError } from "../errors";

/** A purchase, book or input the client can correct; its code is one of src/error-codes.ts. */
export abstract class SalesError extends ClientError {}

export class InvalidInputError extends SalesError {
  override readonly name = "InvalidInputError";
  readonly code = "BAD_USER_INPUT";
  constructor(
    message: string,
    /** The argument or input field at fault, for clients that highlight it. */
    readonly argument: string,
  ) {
    super(message);
  }

  override extensions(): Record<string, unknown> {
    return { argumentName: this.argument };
  }
}

/** A search none of whose words narrows the catalog enough for its window to be read within its budget of books. */
export class SearchTooBroadError extends SalesError {
  override readonly name = "SearchTooBroadError";
  readonly code = "SEARCH_TOO_BROAD";
  constructor(message: string) {
    super(message);
  }

  override extensions(): Record<string, unknown> {
    return { argumentName: "search" };
  }
}

export class BookNotFoundError extends SalesError {
  override readonly name = "BookNotFoundError";
  readonly code = "NOT_FOUND";
  constructor(bookId: string) {
    super(`No book has id "${bookId}".`);
  }
}

export class BookAlreadyExistsError extends SalesError {
  override readonly name = "BookAlreadyExistsError";
  readonly code = "ALREADY_EXISTS";
  constructor(bookId: string) {
    super(`A book with id "${bookId}" already exists.`);
  }
}

/** A purchaseId already names a purchase of this book by another customer: a key names one order line. */
export class PurchaseIdConflictError extends SalesError {
  override readonly name = "PurchaseIdConflictError";
  readonly code = "PURCHASE_ID_CONFLICT";
  constructor(purchaseId: string) {
    // The other customer's id stays unsaid: who bought what is personal data.
    super(`purchaseId "${purchaseId}" already names a purchase of this book by another customer; a new purchase needs a new purchaseId.`);
  }
}

/** Another request with the same purchaseId is still recording it; retrying later with the same purchaseId is safe. */
export class PurchaseInProgressError extends SalesError {
  override readonly name = "PurchaseInProgressError";
  readonly code = "PURCHASE_IN_PROGRESS";
  constructor(purchaseId: string) {
    super(
      `The purchase with purchaseId "${purchaseId}" is still being recorded by an earlier request; retry with the same purchaseId in a moment.`,
    );
  }
}

/** Stored data this version cannot work with safely; a server-side problem, never shown to clients in production. */
export class StoredDataError extends Error {
  override readonly name = "StoredDataError";
}

/** A request that held its share of the pool for the connection time its weight allows (see pool-share.ts): its further reads are refused. */
export class PoolTimeSpentError extends SalesError {
  override readonly name = "PoolTimeSpentError";
  readonly code = "POOL_TIME_SPENT";
  constructor(held: number, allowed: number) {
    super(
      `This request held database connections for ${Math.round(held)} connection-ms, all its weight allows (${allowed}); the fields read after that are refused: ask for fewer items, or split the query.`,
    );
  }
}
