/** The stable codes clients see in `extensions.code`. */
export type SalesErrorCode = "BAD_USER_INPUT" | "NOT_FOUND" | "ALREADY_EXISTS";

/** A failure the client caused and can correct; its message is safe to show. */
export abstract class SalesError extends Error {
  abstract readonly code: SalesErrorCode;
}

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

/** Stored data this version cannot work with safely; a server-side problem, never shown to clients in production. */
export class StoredDataError extends Error {
  override readonly name = "StoredDataError";
}
