/**
 * What mongod 7.0 lets each command do, by every name it answers to: the one table that write concerns,
 * sessions, transactions and fail points read, so that their rules cannot drift apart. Each entry is
 * mongod's own declaration of the command (`supportsWriteConcern`, `allowedInTransactions`,
 * `retryableWriteCommands` in transaction_validation.cpp, and the checks of `validateSessionOptions`).
 */
export interface CommandTraits {
  /**
   * A `writeConcern` is refused (72 "Command does not support writeConcern"), accepted and checked but never
   * waited for (nothing to wait for: `aggregate` without `$out`/`$merge`, which this server refuses), or
   * waited for once the command has written.
   */
  readonly writeConcern: "refused" | "accepted" | "awaited";
  /**
   * Whether it runs as a statement of a multi-document transaction: never (263), always, or only in a
   * transaction whose read concern is `local` (the catalog's `create` and `createIndexes`, else 72).
   */
  readonly inTransaction: "refused" | "allowed" | "with read concern local";
  /** mongod's own words when it refuses the command in a transaction, where it has more than the generic ones. */
  readonly refusedInTransactionBecause?: string;
  /** mongod's refusal (263) when the command would be a transaction's first statement. */
  readonly cannotStartTransactionBecause?: string;
  /** Takes a `txnNumber` without `autocommit`: a retryable write, answered once per number. */
  readonly retryableWrite: boolean;
  /** `commitTransaction` or `abortTransaction`: the only commands that take a write concern inside a transaction. */
  readonly endsTransaction: boolean;
  /** `hello` or `isMaster`: the handshake, whose `client` field names the connection's application. */
  readonly handshake: boolean;
}

const READ: CommandTraits = {
  writeConcern: "refused",
  inTransaction: "allowed",
  retryableWrite: false,
  endsTransaction: false,
  handshake: false,
};
const WRITE: CommandTraits = { ...READ, writeConcern: "awaited", retryableWrite: true };
/** Commands that neither write documents nor run in transactions: handshakes, listings, parameters, fail points. */
const OTHER: CommandTraits = { ...READ, inTransaction: "refused" };
const CATALOG_CHANGE: CommandTraits = { ...OTHER, writeConcern: "awaited" };
const IN_TRANSACTION_CATALOG_CHANGE: CommandTraits = { ...CATALOG_CHANGE, inTransaction: "with read concern local" };
const DROP_INDEXES = CATALOG_CHANGE;
const FIND_AND_MODIFY = WRITE;
const BUILD_INFO = OTHER;
const HANDSHAKE: CommandTraits = { ...OTHER, handshake: true };

function transactionEnd(verb: "a commit" | "an abort"): CommandTraits {
  return {
    ...CATALOG_CHANGE,
    inTransaction: "allowed",
    endsTransaction: true,
    cannotStartTransactionBecause: `Cannot start a transaction with ${verb}`,
  };
}

/** Every command this server implements, under each of its names (an alias repeats its command's entry). */
export const COMMAND_TABLE = {
  hello: HANDSHAKE,
  isMaster: HANDSHAKE,
  ismaster: HANDSHAKE,
  ping: OTHER,
  buildInfo: BUILD_INFO,
  buildinfo: BUILD_INFO,
  endSessions: OTHER,
  killSessions: OTHER,
  killAllSessions: OTHER,
  collMod: CATALOG_CHANGE,
  renameCollection: CATALOG_CHANGE,
  find: READ,
  getMore: READ,
  killCursors: { ...READ, cannotStartTransactionBecause: "Cannot run killCursors as the first operation in a multi-document transaction." },
  aggregate: { ...READ, writeConcern: "accepted" },
  distinct: READ,
  count: {
    ...OTHER,
    refusedInTransactionBecause:
      "Cannot run 'count' in a multi-document transaction. Please see http://dochub.mongodb.org/core/transaction-count for a recommended alternative.",
  },
  explain: OTHER,
  insert: WRITE,
  update: WRITE,
  delete: WRITE,
  findAndModify: FIND_AND_MODIFY,
  findandmodify: FIND_AND_MODIFY,
  create: IN_TRANSACTION_CATALOG_CHANGE,
  createIndexes: IN_TRANSACTION_CATALOG_CHANGE,
  drop: CATALOG_CHANGE,
  dropDatabase: CATALOG_CHANGE,
  dropIndexes: DROP_INDEXES,
  deleteIndexes: DROP_INDEXES,
  listIndexes: OTHER,
  listCollections: OTHER,
  listDatabases: OTHER,
  setParameter: OTHER,
  getParameter: OTHER,
  commitTransaction: transactionEnd("a commit"),
  abortTransaction: transactionEnd("an abort"),
  configureFailPoint: OTHER,
  waitForFailPoint: OTHER,
} as const satisfies Record<string, CommandTraits>;

export type CommandName = keyof typeof COMMAND_TABLE;

/** The traits of the command named `name`, or undefined for a command this server does not have. */
export function traitsOf(name: string): CommandTraits | undefined {
  return Object.hasOwn(COMMAND_TABLE, name) ? COMMAND_TABLE[name as CommandName] : undefined;
}
