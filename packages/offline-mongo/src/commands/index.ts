import type { Document } from "bson";
import { COMMAND_TABLE, type CommandTraits } from "./command-table";
import { AwaitingData } from "../query-engine/cursors";
import { codeNameOf, ErrorCode, MongoCommandError, noSuchCommand } from "../errors";
import { ClosedByFailPoint } from "./fail-points";
import { HeldByTransaction } from "../sessions/transactions";
import { checkWriteConcern, writeConcernErrorOf } from "../sessions/write-concern";
import { aggregateCommands } from "./aggregate";
import type { CommandContext, CommandDefinition } from "./context";
import { explainCommands } from "./explain";
import { checkGenericFields } from "./fields";
import { handshakeCommands } from "./handshake";
import { indexCommands } from "./indexes";
import { namespaceCommands } from "./namespaces";
import { parameterCommands } from "./parameters";
import { readCommands } from "./read";
import { testCommands } from "./test-commands";
import { transactionCommands } from "./transactions";
import { writeCommands } from "./write";

export type { CommandContext } from "./context";

/** Each command by every name it answers to, with that name's traits. */
const COMMANDS = new Map<string, { definition: CommandDefinition; traits: CommandTraits }>(
  [
    ...handshakeCommands,
    ...readCommands,
    ...writeCommands,
    ...aggregateCommands,
    ...explainCommands,
    ...indexCommands,
    ...namespaceCommands,
    ...parameterCommands,
    ...transactionCommands,
    ...testCommands,
  ].flatMap((definition) => definition.names.map((name) => [name, { definition, traits: COMMAND_TABLE[name] }] as const)),
);

/** Every name of the command `name` names (itself and its aliases); none for an unknown command. */
export function aliasesOf(name: string): readonly string[] {
  return COMMANDS.get(name)?.definition.names ?? [];
}

/**
 * Runs one command synchronously and returns its reply, errors included as `{ok: 0, ...}`; on a replica-set
 * member, within its session's transaction when it has one. Throws HeldByTransaction when the command must
 * wait for a transaction to end (see `OfflineServer`).
 */
export function runCommand(body: Document, context: CommandContext): Document {
  const name = Object.keys(body)[0] ?? "";
  try {
    const command = COMMANDS.get(name);
    if (!command) throw noSuchCommand(name);
    const { definition, traits } = command;
    const replicaSetMember = context.replicaSet !== undefined;
    checkGenericFields(name, body, definition.fields, replicaSetMember);
    checkWriteConcern(traits, body, replicaSetMember);
    const reply = context.transactions.run(
      name,
      traits,
      body,
      (storage, inTransaction) => definition.run(body, { ...context, storage, inTransaction }),
      (statements) => context.failPoints?.transactionalWrite(statements),
    );
    const writeConcernError = reply["ok"] === 1 ? writeConcernErrorOf(traits, body, replicaSetMember) : undefined;
    return writeConcernError === undefined ? reply : { ...reply, writeConcernError };
  } catch (error) {
    if (error instanceof HeldByTransaction || error instanceof AwaitingData || error instanceof ClosedByFailPoint) throw error;
    if (error instanceof MongoCommandError) return error.toReply();
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: 0,
      errmsg: `offline server internal error: ${message}`,
      code: ErrorCode.InternalError,
      codeName: codeNameOf(ErrorCode.InternalError),
    };
  }
}
