import type { Document } from "bson";
import type { CursorRegistry } from "../cursors";
import type { Storage } from "../storage";

/** mongod's runtime server parameters this server implements (`setParameter`/`getParameter`). */
export interface ServerParameters {
  /** A non-empty query that only a collection scan could answer fails with 291 NoQueryExecutionPlans. */
  notablescan: boolean;
}

export interface CommandContext {
  readonly parameters: ServerParameters;
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  /** The database the command runs against (`$db`). */
  readonly db: string;
  readonly connectionId: number;
}

export interface CommandDefinition {
  /** The command's name and aliases, as the first field of the command document. */
  readonly names: readonly string[];
  /**
   * Fields this command accepts besides its name and the generic ones every command accepts;
   * "any" for commands mongod parses leniently (hello, whose fields grow with each driver release).
   */
  readonly fields: readonly string[] | "any";
  /** Runs synchronously from decode to reply, so no other command interleaves with it. */
  run(body: Document, context: CommandContext): Document;
}
