import { Binary, Long, Timestamp, type Document } from "bson";
import type { CommandTraits } from "../commands/command-table";
import { catalogChangeOf, changeOf, type ChangeLog, type ChangeWrite, type TransactionOrigin } from "../change-streams/change-log";
import { ErrorCode, LocationCode, MongoCommandError, TransientTransactionError } from "../errors";
import { ClosedByFailPoint, type TransactionalWriteFault } from "../commands/fail-points";
import {
  Storage,
  type CatalogChange,
  type Collection,
  type IndexChanges,
  type StoredDocument,
  type WriteGuard,
} from "../query-engine/storage";
import { canonicalKey, isDocument, isNumeric, toNumber } from "../values/values";
import { SnapshotReads, snapshotReadConcern, withAtClusterTime } from "./snapshot-reads";

/** mongod's default `transactionLifetimeLimitSeconds`: a transaction still open after it is aborted. */
export const DEFAULT_TRANSACTION_LIFETIME_MS = 60_000;

function writeConflict(): TransientTransactionError {
  return new TransientTransactionError(
    ErrorCode.WriteConflict,
    "Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.",
  );
}

function noSuchTransaction(message: string): TransientTransactionError {
  return new TransientTransactionError(ErrorCode.NoSuchTransaction, message);
}

function wasAborted(transaction: Transaction): TransientTransactionError {
  return noSuchTransaction(`Transaction with { txnNumber: ${transaction.txnNumber} } has been aborted.`);
}

/**
 * Thrown by a command outside any transaction that reaches a document (or unique key) an open transaction
 * has written, or drops or re-indexes a collection it writes in: mongod makes such a command wait until
 * the transaction ends, so the server parks the command and runs it again then (see `OfflineServer`).
 */
export class HeldByTransaction extends Error {
  /** The waiting command's own `maxTimeMS`, past which it fails with MaxTimeMSExpired (50) instead. */
  maxTimeMS: number | undefined;

  constructor(readonly transaction: Transaction) {
    super("the document is held by an open transaction");
  }
}

const TRANSACTION_READ_CONCERNS = new Set(["snapshot", "majority", "local"]);

type TransactionState = "in progress" | "committed" | "aborted";

/**
 * One multi-document transaction: a snapshot of the committed data as of its first command, which it
 * writes privately (copy on write), and its write set: the documents, unique keys and new collections it
 * has written, which no one else may write until it ends.
 */
export class Transaction {
  state: TransactionState = "in progress";
  readonly storage: Storage;
  /** The commit sequence number its snapshot was taken at: a document committed later than this conflicts. */
  readonly snapshotAt: number;
  /** Each document written, by its lock key, in the order first written: what a commit applies. */
  readonly writes = new Map<string, { database: string; collection: string; id: unknown }>();
  /** The namespaces it has written in: their collections cannot be dropped or re-indexed until it ends. */
  readonly namespaces = new Set<string>();
  /** The lock keys it holds: its documents and the unique index keys they held or hold. */
  readonly held = new Set<string>();
  /** Its writes in the order made, which its commit adds to the history (each statement's, as mongod's `applyOps`). */
  readonly changes: ChangeWrite[] = [];
  private readonly waiters: (() => void)[] = [];
  private readonly expiry: NodeJS.Timeout;

  constructor(
    readonly txnNumber: number,
    /** Its session and number as its change events name them. */
    readonly origin: TransactionOrigin,
    /** The read concern level its first command gave, if any. */
    readonly readConcernLevel: string | undefined,
    live: Storage,
    snapshotAt: number,
    guard: (transaction: Transaction) => WriteGuard,
    lifetimeMs: number,
    onExpiry: (transaction: Transaction) => void,
  ) {
    this.snapshotAt = snapshotAt;
    this.storage = live.snapshot(guard(this));
    this.expiry = setTimeout(() => onExpiry(this), lifetimeMs).unref();
  }

  /** Runs `resume` once the transaction has committed or aborted. */
  onEnd(resume: () => void): void {
    this.waiters.push(resume);
  }

  end(state: "committed" | "aborted"): void {
    this.state = state;
    clearTimeout(this.expiry);
    // Later, not now: a parked command run inside the command that ended the transaction would interleave with it.
    for (const resume of this.waiters.splice(0)) setImmediate(resume);
  }
}

interface Session {
  txnNumber: number;
  transaction?: Transaction;
  /** The reply of the retryable write numbered `txnNumber`, answered again to its retries. */
  retryableReply?: Document;
}

/**
 * Sessions, retryable writes and transactions of a replica-set member. Isolation is by snapshot: a
 * transaction reads and writes a copy-on-write snapshot of the committed data as of its first command,
 * and commit applies its write set (only the documents it wrote) to the committed data within one
 * command. Conflicts are found when they happen, as WiredTiger finds them: writing a document (or a
 * unique key) that another open transaction holds, or that was committed after the snapshot, fails with
 * WriteConflict (112, TransientTransactionError) and aborts the transaction; a write outside
 * transactions that reaches such a document waits until the transaction ends, then applies.
 */
export class Transactions {
  readonly live: Storage;
  /** Bumped by every write to the shared data; a snapshot remembers the number it was taken at. */
  private sequence = 0;
  /** When each document was last written, by lock key: kept only while a transaction is open, the only time it matters. */
  private readonly lastWritten = new Map<string, number>();
  private readonly locks = new Map<string, Transaction>();
  private readonly sessions = new Map<string, Session>();
  private readonly open = new Set<Transaction>();
  private committing = false;
  /** Reads at a cluster time outside transactions: a replica set's only (it keeps the history they need). */
  private readonly snapshotReads: SnapshotReads | undefined;

  /** `history`: the replica set's history of writes (none on a standalone, which keeps none). */
  constructor(
    private readonly lifetimeMs = DEFAULT_TRANSACTION_LIFETIME_MS,
    readonly history: ChangeLog | undefined = undefined,
  ) {
    this.live = new Storage({
      beforeWrite: (collection, before, after, changes) => this.beforeLiveWrite(collection, before, after, changes),
      beforeCatalogChange: (database, name, change) => this.beforeLiveCatalogChange(database, name, change),
      // A commit's writes reach the history at its end, as the transaction made them.
      afterWrite: (collection, write) => {
        if (!this.committing) this.history?.append([changeOf(collection, write)]);
      },
      afterCatalogChange: (change) => {
        if (!this.committing) this.history?.append([catalogChangeOf(change)]);
      },
    });
    this.snapshotReads = history === undefined ? undefined : new SnapshotReads(this.live, history);
  }

  /**
   * Runs a command of a session: a retryable write, a transaction's statement, or (no `txnNumber`) as it is.
   * `fault` is the `onPrimaryTransactionalWrite` fail point, asked about each retryable write's statements.
   */
  run(
    name: string,
    traits: CommandTraits,
    body: Document,
    execute: (storage: Storage, inTransaction: boolean) => Document,
    fault: (statements: number) => TransactionalWriteFault = () => undefined,
  ): Document {
    const txnNumber = body["txnNumber"];
    const outside = (): Document => this.runOutside(traits, body, execute);
    if (txnNumber === undefined) {
      if (traits.endsTransaction) throw new MongoCommandError(LocationCode.NotInTransaction, `${name} must be run within a transaction`);
      const snapshot = snapshotReadConcern(body);
      if (snapshot !== undefined && this.snapshotReads !== undefined) return this.readAtSnapshot(this.snapshotReads, snapshot, execute);
      return outside();
    }
    const session = this.sessionOf(body["lsid"]);
    const number = isNumeric(txnNumber) ? toNumber(txnNumber) : NaN;
    if (body["autocommit"] === undefined)
      return this.runRetryableWrite(name, traits, session, number, outside, () => fault(statementsOf(name, body)));
    if (body["autocommit"] !== false) throw new MongoCommandError(ErrorCode.InvalidOptions, "Specifying autocommit=true is not allowed.");
    checkStatement(name, traits, body);
    const transaction = this.transactionFor(session, number, body);
    if (name === "commitTransaction") return this.commit(transaction);
    if (name === "abortTransaction") return this.abortByClient(transaction);
    return this.runStatement(name, traits, body, transaction, () => execute(transaction.storage, true));
  }

  /** A snapshot read outside transactions: the command runs on the data as of its time, which the reply names. */
  private readAtSnapshot(
    reads: SnapshotReads,
    readConcern: Document,
    execute: (storage: Storage, inTransaction: boolean) => Document,
  ): Document {
    const { storage, atClusterTime } = reads.at(readConcern);
    return withAtClusterTime(execute(storage, false), atClusterTime);
  }

  /**
   * A command outside transactions. While a transaction holds documents, a write is first rehearsed on a
   * throwaway snapshot: if it would meet a held document or key, it waits before writing anything (so a
   * batch never stops halfway), then runs whole on the committed data once the transaction has ended.
   * mongod instead writes up to the held document and waits there; a client sees the same outcomes.
   */
  private runOutside(traits: CommandTraits, body: Document, execute: (storage: Storage, inTransaction: boolean) => Document): Document {
    try {
      // The retryable writes are the commands that write documents, possibly several: the ones a transaction can hold up halfway.
      if (this.locks.size > 0 && traits.retryableWrite) rehearse(() => execute(this.live.snapshot(this.heldCheck), false));
      return execute(this.live, false);
    } catch (error) {
      if (error instanceof HeldByTransaction) error.maxTimeMS = timeLimitOf(body);
      throw error;
    }
  }

  /** Stops a write outside transactions at the first document, key or collection an open transaction holds. */
  private readonly heldCheck: WriteGuard = {
    beforeWrite: (collection, before, after, changes) => {
      const holder = this.holderOf(collection, before, after, changes);
      if (holder !== undefined) throw new HeldByTransaction(holder);
    },
    // A collection a transaction writes in is locked against drops and index builds (mongod's MODE_IX against
    // MODE_X); creating one never waits: a transaction that created the same collection fails at commit instead.
    beforeCatalogChange: (database, name, change) => {
      if (change === "create") return;
      const holder = [...this.open].find((transaction) => transaction.namespaces.has(`${database}.${name}`));
      if (holder !== undefined) throw new HeldByTransaction(holder);
    },
  };

  /** The open transaction holding the document written, or one of the unique keys it removes or adds. */
  private holderOf(
    collection: Collection,
    before: StoredDocument | undefined,
    after: Document | undefined,
    changes: IndexChanges,
  ): Transaction | undefined {
    for (const key of [documentKey(collection, before, after), ...uniqueKeys(collection, changes)]) {
      const holder = this.locks.get(key);
      if (holder !== undefined) return holder;
    }
    return undefined;
  }

  /** `endSessions`: their open transactions are aborted, as mongod does. */
  endSessions(ids: unknown[]): void {
    for (const id of ids) {
      const key = sessionKey(id);
      const session = key === undefined ? undefined : this.sessions.get(key);
      if (session?.transaction?.state === "in progress") this.abort(session.transaction);
      if (key !== undefined) this.sessions.delete(key);
    }
  }

  /** `killSessions` (these ids) and `killAllSessions` ("all"): their open transactions are aborted; the sessions stay. */
  killSessions(ids: unknown[] | "all"): void {
    const keys = ids === "all" ? [...this.sessions.keys()] : ids.map(sessionKey);
    for (const key of keys) {
      const transaction = key === undefined ? undefined : this.sessions.get(key)?.transaction;
      if (transaction?.state === "in progress") this.abort(transaction);
    }
  }

  /** The fields a replica-set member adds to every reply. */
  clusterTime(): Document {
    const time = this.history?.now() ?? new Timestamp({ t: Math.floor(Date.now() / 1000), i: 1 });
    return {
      $clusterTime: { clusterTime: time, signature: { hash: new Binary(Buffer.alloc(20)), keyId: Long.fromNumber(0) } },
      operationTime: time,
    };
  }

  private sessionOf(lsid: unknown): Session {
    const key = sessionKey(isDocument(lsid) ? lsid["id"] : undefined);
    if (key === undefined)
      throw new MongoCommandError(ErrorCode.InvalidOptions, "Transaction number requires a session ID to also be specified");
    let session = this.sessions.get(key);
    if (session === undefined) {
      session = { txnNumber: -1 };
      this.sessions.set(key, session);
    }
    return session;
  }

  private runRetryableWrite(
    name: string,
    traits: CommandTraits,
    session: Session,
    txnNumber: number,
    execute: () => Document,
    fault: () => TransactionalWriteFault,
  ): Document {
    if (!traits.retryableWrite) {
      throw new MongoCommandError(
        LocationCode.NotInTransaction,
        `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${name} is not a retryable write command.`,
      );
    }
    if (txnNumber < session.txnNumber)
      throw new MongoCommandError(
        ErrorCode.TransactionTooOld,
        `Retryable write with txnNumber ${txnNumber} is prohibited on session because a newer retryable write with txnNumber ${session.txnNumber} has already started on this session.`,
      );
    if (txnNumber === session.txnNumber && session.retryableReply !== undefined) return session.retryableReply;
    if (session.transaction?.state === "in progress") this.abort(session.transaction);
    session.txnNumber = txnNumber;
    session.transaction = undefined;
    // The previous write's reply goes now: a write parked behind a transaction runs again from here, and must not find it.
    session.retryableReply = undefined;
    const faulted = fault();
    if (faulted?.undone === true) throw new ClosedByFailPoint();
    const reply = execute();
    if (reply["ok"] === 1) session.retryableReply = reply;
    if (faulted !== undefined) throw new ClosedByFailPoint();
    return reply;
  }

  private transactionFor(session: Session, txnNumber: number, body: Document): Transaction {
    if (body["startTransaction"] === true) {
      if (txnNumber < session.txnNumber) throw tooOld(txnNumber, session.txnNumber);
      if (txnNumber === session.txnNumber)
        throw new MongoCommandError(
          ErrorCode.ConflictingOperationInProgress,
          `Cannot start transaction ${txnNumber} on session: it is already in use`,
        );
      const readConcernLevel = transactionReadConcernLevel(body["readConcern"]);
      if (session.transaction?.state === "in progress") this.abort(session.transaction);
      const transaction = new Transaction(
        txnNumber,
        { txnNumber: Long.fromNumber(txnNumber), lsid: isDocument(body["lsid"]) ? body["lsid"] : {} },
        readConcernLevel,
        this.live,
        this.sequence,
        (t) => this.guardOf(t),
        this.lifetimeMs,
        (t) => this.abort(t),
      );
      this.open.add(transaction);
      session.txnNumber = txnNumber;
      session.transaction = transaction;
      session.retryableReply = undefined;
      return transaction;
    }
    const transaction = session.transaction;
    if (transaction === undefined || session.txnNumber !== txnNumber) {
      throw noSuchTransaction(`Given transaction number ${txnNumber} does not match any in-progress transactions.`);
    }
    if (body["readConcern"] !== undefined)
      throw new MongoCommandError(ErrorCode.InvalidOptions, "Only the first command in a transaction may specify a readConcern");
    return transaction;
  }

  private runStatement(name: string, traits: CommandTraits, body: Document, transaction: Transaction, execute: () => Document): Document {
    if (transaction.state === "aborted") throw wasAborted(transaction);
    if (transaction.state === "committed")
      throw new MongoCommandError(ErrorCode.TransactionCommitted, `Transaction ${transaction.txnNumber} has been committed.`);
    try {
      if (traits.inTransaction === "with read concern local" && (transaction.readConcernLevel ?? "local") !== "local")
        throw new MongoCommandError(
          ErrorCode.InvalidOptions,
          `Cannot run '${name}' in a multi-document transaction with readConcern level '${transaction.readConcernLevel}': only 'local' is allowed`,
        );
      if (body["writeConcern"] !== undefined)
        throw new MongoCommandError(ErrorCode.InvalidOptions, "writeConcern is not allowed within a multi-statement transaction");
      const reply = execute();
      // A write error ends the transaction, as on mongod: nothing of it will commit.
      if (Array.isArray(reply["writeErrors"]) && reply["writeErrors"].length > 0) this.abort(transaction);
      return reply;
    } catch (error) {
      this.abort(transaction);
      throw error;
    }
  }

  private commit(transaction: Transaction): Document {
    if (transaction.state === "committed") return { ok: 1 };
    if (transaction.state === "aborted") throw wasAborted(transaction);
    // A collection it created that has been created since, outside or by another transaction: mongod fails the commit so.
    for (const namespace of transaction.storage.created) if (this.liveCollection(namespace) !== undefined) throw this.conflict(transaction);
    this.committing = true;
    try {
      for (const namespace of transaction.storage.created) this.createLive(transaction.storage, namespace);
      const changes = [...transaction.writes.values()].map(({ database, collection, id }) => {
        const live = this.live.collection(database, collection);
        return { live, current: live.findById(id), final: transaction.storage.existingCollection(database, collection)?.findById(id) };
      });
      // Deletes first, then updates, then inserts, so that a unique key the transaction moved is free where it lands.
      for (const { live, current, final } of changes) if (current && !final) live.remove(current);
      for (const { live, current, final } of changes) if (current && final) live.replace(current, final.doc, "update");
      for (const { live, current, final } of changes) if (!current && final) live.insert(final.doc);
    } finally {
      this.committing = false;
    }
    this.sequence += 1;
    for (const key of transaction.writes.keys()) this.lastWritten.set(key, this.sequence);
    for (const namespace of transaction.storage.created) this.lastWritten.set(lockKeyOfNamespace(namespace), this.sequence);
    this.history?.append(transaction.changes, transaction.origin);
    this.release(transaction, "committed");
    return { ok: 1 };
  }

  private abortByClient(transaction: Transaction): Document {
    if (transaction.state === "committed")
      throw new MongoCommandError(ErrorCode.TransactionCommitted, `Transaction ${transaction.txnNumber} has been committed.`);
    if (transaction.state === "aborted") throw wasAborted(transaction);
    this.abort(transaction);
    return { ok: 1 };
  }

  private abort(transaction: Transaction): void {
    if (transaction.state === "in progress") this.release(transaction, "aborted");
  }

  private release(transaction: Transaction, state: "committed" | "aborted"): void {
    for (const key of transaction.held) if (this.locks.get(key) === transaction) this.locks.delete(key);
    this.open.delete(transaction);
    if (this.open.size === 0) this.lastWritten.clear();
    transaction.end(state);
  }

  /** A write to the shared data outside any transaction (or a commit applying one). */
  private beforeLiveWrite(
    collection: Collection,
    before: StoredDocument | undefined,
    after: Document | undefined,
    changes: IndexChanges,
  ): void {
    if (this.committing || this.open.size === 0) return;
    this.heldCheck.beforeWrite(collection, before, after, changes);
    this.written(documentKey(collection, before, after));
  }

  /** A collection created or dropped, or an index built or dropped, in the shared data: it waits for the transactions writing there. */
  private beforeLiveCatalogChange(database: string, name: string, change: CatalogChange): void {
    if (this.committing || this.open.size === 0) return;
    this.heldCheck.beforeCatalogChange(database, name, change);
    if (change !== "index") this.written(lockKeyOfNamespace(`${database}.${name}`));
  }

  /** Marks a lock key written now, so that transactions whose snapshot is older conflict on it. */
  private written(key: string): void {
    this.sequence += 1;
    this.lastWritten.set(key, this.sequence);
  }

  private liveCollection(namespace: string): Collection | undefined {
    const [database = "", name = ""] = splitNamespace(namespace);
    return this.live.existingCollection(database, name);
  }

  /** Creates in the shared data a collection a transaction created, with the indexes it built on it. */
  private createLive(snapshot: Storage, namespace: string): void {
    const [database = "", name = ""] = splitNamespace(namespace);
    const live = this.live.collection(database, name);
    for (const index of snapshot.existingCollection(database, name)?.indexes.slice(1) ?? []) live.addIndex(index.spec);
  }

  /** A transaction's write to its snapshot: refused if another open transaction or a later commit has the document or the key. */
  private guardOf(transaction: Transaction): WriteGuard {
    return {
      // Creating a collection conflicts only at commit, with one created meanwhile (see `commit`), as on mongod.
      beforeCatalogChange: () => undefined,
      afterWrite: (collection, write) => void transaction.changes.push(changeOf(collection, write)),
      afterCatalogChange: (change) => void transaction.changes.push(catalogChangeOf(change)),
      beforeWrite: (collection, before, after, changes) => {
        // A collection dropped or created outside since the snapshot: mongod's catalog conflict.
        const namespaceKey = lockKeyOfNamespace(collection.namespace);
        if (!transaction.storage.created.has(collection.namespace) && (this.lastWritten.get(namespaceKey) ?? 0) > transaction.snapshotAt)
          throw this.conflict(transaction);
        transaction.namespaces.add(collection.namespace);
        const document = documentKey(collection, before, after);
        const keys = uniqueKeys(collection, changes);
        for (const key of [document, ...keys]) {
          const holder = this.locks.get(key);
          if (holder !== undefined && holder !== transaction) throw this.conflict(transaction);
        }
        if ((this.lastWritten.get(document) ?? 0) > transaction.snapshotAt) throw this.conflict(transaction);
        if (after !== undefined && this.keyCommittedSince(collection, after, changes, transaction)) throw this.conflict(transaction);
        for (const key of [document, ...keys]) {
          this.locks.set(key, transaction);
          transaction.held.add(key);
        }
        const id = (after ?? before?.doc)?.["_id"];
        if (!transaction.writes.has(document))
          transaction.writes.set(document, { database: collection.database, collection: collection.name, id });
      },
    };
  }

  private conflict(transaction: Transaction): TransientTransactionError {
    this.abort(transaction);
    return writeConflict();
  }

  /**
   * True when the shared data holds a unique key the write adds to `doc` in a document written after the snapshot:
   * a commit the snapshot cannot see.
   */
  private keyCommittedSince(collection: Collection, doc: Document, changes: IndexChanges, transaction: Transaction): boolean {
    const live = this.live.existingCollection(collection.database, collection.name);
    if (live === undefined) return false;
    return changes.some(([index, change]) => {
      const liveIndex = live.indexes.find((candidate) => candidate.spec.name === index.spec.name);
      return (liveIndex?.holdersOfAdded(change) ?? []).some((holder) => {
        const record = live.record(holder);
        if (record === undefined || canonicalKey(record.doc["_id"]) === canonicalKey(doc["_id"])) return false;
        return (this.lastWritten.get(lockKeyOfDocument(live.namespace, record.doc["_id"])) ?? 0) > transaction.snapshotAt;
      });
    });
  }
}

function documentKey(collection: Collection, before: StoredDocument | undefined, after: Document | undefined): string {
  return lockKeyOfDocument(collection.namespace, (after ?? before?.doc)?.["_id"]);
}

// Documents, unique keys and collections share the lock and last-written tables; NUL-separated kinds keep their keys apart.
function lockKeyOfDocument(namespace: string, id: unknown): string {
  return `${namespace}\u0000d\u0000${canonicalKey(id)}`;
}

function lockKeyOfNamespace(namespace: string): string {
  return `${namespace}\u0000n`;
}

/** `db.collection` into its database and collection names (collection names may hold dots, database names may not). */
function splitNamespace(namespace: string): string[] {
  const dot = namespace.indexOf(".");
  return [namespace.slice(0, dot), namespace.slice(dot + 1)];
}

/** The lock keys of the unique index entries (other than `_id`'s, which the document's own lock covers) the write removes or adds. */
function uniqueKeys(collection: Collection, changes: IndexChanges): string[] {
  return changes
    .filter(([index]) => index !== collection.indexes[0])
    .flatMap(([index, change]) => index.uniqueKeysOf(change).map((key) => `${collection.namespace}\u0000k\u0000${key}`));
}

/**
 * mongod's checks of a statement before it touches the session (`validateSessionOptions`): a command it does
 * not run in transactions (263, a statement that ends nothing), or one that cannot start one.
 */
function checkStatement(name: string, traits: CommandTraits, body: Document): void {
  if (traits.inTransaction === "refused")
    throw new MongoCommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      traits.refusedInTransactionBecause ?? `Cannot run '${name}' in a multi-document transaction.`,
    );
  if (body["startTransaction"] === true && traits.cannotStartTransactionBecause !== undefined)
    throw new MongoCommandError(ErrorCode.OperationNotSupportedInTransaction, traits.cannotStartTransactionBecause);
}

/** The statements of a retryable write: its documents, updates or deletes (findAndModify is one). */
function statementsOf(name: string, body: Document): number {
  const list: unknown = body[{ insert: "documents", update: "updates", delete: "deletes" }[name] ?? ""];
  return Array.isArray(list) ? list.length : 1;
}

/** Runs a write whose only purpose is to learn whether it would wait: any other error is the real run's to answer. */
function rehearse(write: () => Document): void {
  try {
    write();
  } catch (error) {
    if (error instanceof HeldByTransaction) throw error;
  }
}

/** A command's `maxTimeMS`, if it has one (0 means none, as on mongod). */
function timeLimitOf(body: Document): number | undefined {
  const limit = isNumeric(body["maxTimeMS"]) ? toNumber(body["maxTimeMS"]) : 0;
  return limit > 0 ? limit : undefined;
}

/** A session id (the `id` of an `lsid`) as the key its state is kept under. */
export function sessionKey(id: unknown): string | undefined {
  return id instanceof Binary ? Buffer.from(id.buffer).toString("hex") : undefined;
}

function tooOld(txnNumber: number, current: number): MongoCommandError {
  return new MongoCommandError(
    ErrorCode.TransactionTooOld,
    `Cannot start transaction ${txnNumber} on session because a newer transaction ${current} has already started`,
  );
}

/** The level of a transaction's read concern, refused unless mongod runs transactions at it. */
function transactionReadConcernLevel(readConcern: unknown): string | undefined {
  if (!isDocument(readConcern) || readConcern["level"] === undefined) return undefined;
  const level = String(readConcern["level"]);
  if (!TRANSACTION_READ_CONCERNS.has(level))
    throw new MongoCommandError(
      ErrorCode.InvalidOptions,
      `The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction`,
    );
  return level;
}
