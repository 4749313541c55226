/** What one `extensions.code` tells a client. */
export interface ErrorCodeEntry {
  /**
   * The HTTP status of an answer refused as a whole with this code. A code a resolver raises comes instead in a
   * 200 answer, beside the data the other fields got, as GraphQL over HTTP has it for `application/json`.
   */
  readonly status: number;
  /** What went wrong and what the client can do, in one line. */
  readonly meaning: string;
}

/**
 * Every `extensions.code` a client can see, this service's and those Apollo Server raises for it: the one list
 * every layer takes its codes and statuses from. docs/api/errors.md shows it to clients
 * (test/unit/error-codes.test.ts keeps the two alike, and refuses a code nothing raises).
 */
export const ERROR_CODES = {
  BAD_USER_INPUT: {
    status: 400,
    meaning: "An argument, variable or input field the client can correct; `argumentName` names it when one is at fault.",
  },
  NOT_FOUND: { status: 200, meaning: "No book has the id given." },
  ALREADY_EXISTS: { status: 200, meaning: "`addBook` was given the id of a book that exists already." },
  PURCHASE_ID_CONFLICT: {
    status: 200,
    meaning: "The `purchaseId` already names another customer's purchase of this book: a new purchase needs a new one.",
  },
  PURCHASE_IN_PROGRESS: {
    status: 200,
    meaning: "An earlier request with this `purchaseId` is still recording it: retry with the same `purchaseId`.",
  },
  POOL_TIME_SPENT: {
    status: 200,
    meaning:
      "The request held its share of the database's connections for as long as its weight allows (1 ms per unit of cost and 10 ms per document it may examine, 2 s at least), as when the database is slowed down; the fields read after that are refused: ask for fewer items, or split the query.",
  },
  SEARCH_TOO_BROAD: {
    status: 200,
    meaning:
      "The search cannot be read within its window's budget: its only word is shorter than 3 letters, or it has several words (or a year range, or the PURCHASE_COUNT order) and each word is in more books than the window may read: add a rarer word, type more of the last one (3 letters at least), browse by another order, or ask for more books with `first`.",
  },
  UNAUTHENTICATED: { status: 401, meaning: "A field needs a bearer token and none valid was sent." },
  FORBIDDEN: {
    status: 403,
    meaning: "A field needs a scope the token sent does not have, or a shopper's token reached another customer's data.",
  },
  DOCUMENT_NOT_TRUSTED: {
    status: 403,
    meaning: "The token may run only its trusted documents, named by hash: the request sent a document, or a hash not among them.",
  },
  QUERY_TOO_DEEP: { status: 400, meaning: "More nested levels of fields than the limit." },
  TOO_MANY_ALIASES: { status: 400, meaning: "More aliased fields than the limit." },
  TOO_MANY_DIRECTIVES: { status: 400, meaning: "More directives than the limit." },
  QUERY_TOO_COMPLEX: {
    status: 400,
    meaning:
      "The operation, weighed with its variables, costs more than the limit or may make the database examine more documents than the limit: ask for fewer items.",
  },
  RATE_LIMITED: {
    status: 429,
    meaning:
      "The client (its bearer token, else its address) has used its budget of documents that heavy requests may make the database examine per window (CLIENT_BUDGET_*): retry after the `Retry-After` seconds, and ask for less (smaller `first` values, fewer representations or windows).",
  },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: "The request body is larger than the limit." },
  REQUEST_TIMEOUT: {
    status: 503,
    meaning:
      "The request was still running at the time limit, or waited half of it for its turn among large queries (nothing read then); a purchase may have been stored: retry with the same `purchaseId`.",
  },
  BAD_REQUEST: {
    status: 400,
    meaning:
      "The HTTP request is not one GraphQL operation sent as JSON, or its body does not decompress (405 for a mutation sent by GET, 415 for a body's unknown charset).",
  },
  GRAPHQL_PARSE_FAILED: { status: 400, meaning: "The document is not valid GraphQL, or holds more tokens than the limit." },
  GRAPHQL_VALIDATION_FAILED: {
    status: 400,
    meaning: "The document asks for what the schema does not have, or in a way it does not allow.",
  },
  OPERATION_RESOLUTION_FAILURE: {
    status: 400,
    meaning: "No operation to run: an `operationName` the document does not hold, or several operations and none named.",
  },
  PERSISTED_QUERY_NOT_FOUND: { status: 200, meaning: "An automatic persisted query's hash is not registered yet: send the query with it." },
  PERSISTED_QUERY_NOT_SUPPORTED: { status: 400, meaning: "An automatic persisted query of another version than 1." },
  PERSISTED_QUERY_HASH_MISMATCH: { status: 400, meaning: "An automatic persisted query whose hash is not its query's." },
  DATABASE_UNAVAILABLE: {
    status: 200,
    meaning: "MongoDB cannot be reached or is overloaded; a purchase may have been stored: retry with the same `purchaseId`.",
  },
  REPLICA_SET_REQUIRED: {
    status: 200,
    meaning: "A subscription needs MongoDB's change streams, which only a replica set or a sharded cluster offers: run MongoDB as one.",
  },
  TOO_MANY_SUBSCRIPTIONS: {
    status: 200,
    meaning: "A subscription over the connection's or the server's limit: complete one first, or open another connection later.",
  },
  DATABASE_NOT_READY: { status: 200, meaning: "A write refused while an index it relies on is missing: retry shortly." },
  INTERNAL_SERVER_ERROR: { status: 500, meaning: "Anything else; logged in full on the server, its message hidden in production." },
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>;

/** An `extensions.code` a client can see. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of an answer refused as a whole with `code`. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
