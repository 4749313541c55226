import type { Document } from "bson";
import type { CommandName } from "./command-table";
import type { CursorRegistry } from "../query-engine/cursors";
import type { FailPoints } from "./fail-points";
import type { Storage } from "../query-engine/storage";
import type { Transactions } from "../sessions/transactions";

/** mongod's runtime server parameters this server implements (`setParameter`/`getParameter`). */
export interface ServerParameters {
  /** A non-empty query that only a collection scan could answer fails with 291 NoQueryExecutionPlans. */
  notablescan: boolean;
}

/** What a replica-set member says of itself in `hello`. */
export interface ReplicaSetMember {
  /** The set's name (`--replSet`). */
  readonly name: string;
  /** `host:port` as clients reach it: the set's only member, and its primary. */
  readonly me: string;
}

export interface CommandContext {
  readonly parameters: ServerParameters;
  /** The data the command reads and writes: the shared data, or its transaction's snapshot. */
  readonly storage: Storage;
  /** Sessions, retryable writes and transactions (used only on a replica-set member). */
  readonly transactions: Transactions;
  /** Set when the server runs as a one-member replica set; undefined on a standalone. */
  readonly replicaSet: ReplicaSetMember | undefined;
  /** True for a statement of a multi-document transaction. */
  readonly inTransaction: boolean;
  readonly cursors: CursorRegistry;
  /** Set when the server was started with test commands enabled: `configureFailPoint` exists only then, as on mongod. */
  readonly failPoints: FailPoints | undefined;
  /** The database the command runs against (`$db`). */
  readonly db: string;
  readonly connectionId: number;
  /** For a getMore answered again after waiting for data: when its wait ends (fixed when it first arrived). */
  readonly awaitDeadline?: number;
}

export interface CommandDefinition {
  /** The command's name and aliases, as the first field of the command document; each has its entry in `COMMAND_TABLE`. */
  readonly names: readonly CommandName[];
  /**
   * Fields this command accepts besides its name and the generic ones every command accepts;
   * "any" for commands mongod parses leniently (hello, whose fields grow with each driver release).
   */
  readonly fields: readonly string[] | "any";
  /** Runs synchronously from decode to reply, so no other command interleaves with it. */
  run(body: Document, context: CommandContext): Document;
}
