import { LocationCode, MongoCommandError } from "../errors";
import type { CommandDefinition } from "./context";

/**
 * `commitTransaction` and `abortTransaction` are answered by `Transactions.run` from the session's
 * state; reaching a definition means the command came without a transaction to end.
 */
function endOfTransaction(name: "commitTransaction" | "abortTransaction"): CommandDefinition {
  return {
    names: [name],
    fields: ["recoveryToken"],
    run() {
      throw new MongoCommandError(LocationCode.NotInTransaction, `${name} must be run within a transaction`);
    },
  };
}

export const transactionCommands: readonly CommandDefinition[] = [
  endOfTransaction("commitTransaction"),
  endOfTransaction("abortTransaction"),
];
