import type { Document } from "bson";
import { isDocument } from "../values/values";
import type { Targets } from "./shard-key";

/** Commands of one name on one namespace that reached the same number of shards. */
interface CommandCount {
  namespace: string;
  command: string;
  shards: number;
  count: number;
}

/** Transactions begun in one database that ended the same way on the same number of shards. */
interface TransactionCount {
  db: string;
  outcome: "committed" | "aborted";
  shards: number;
  count: number;
}

/** A transaction in progress: where its first statement ran and every shard its statements reached. */
interface OpenTransaction {
  db: string;
  shards: Set<number>;
}

/**
 * What `shardTargetingStats` reports: how many shards each routed command reached, by command name and
 * namespace, and how many shards each transaction touched (its participants, which a two-phase commit
 * coordinates as soon as there are two).
 */
export class TargetingStats {
  private commands = new Map<string, CommandCount>();
  private transactions = new Map<string, TransactionCount>();
  private readonly open = new Map<string, OpenTransaction>();
  /** Each open cursor's namespace and shards, by cursor id: its getMores go there. */
  private readonly cursors = new Map<string, { namespace: string; targets: Targets }>();

  command(name: string, namespace: string, targets: Targets, body: Document): void {
    this.count(name, namespace, targets.size);
    const transaction = transactionOf(body);
    if (transaction === undefined) return;
    const open = this.open.get(transaction) ?? { db: namespace.split(".")[0]!, shards: new Set<number>() };
    for (const shard of targets) open.shards.add(shard);
    this.open.set(transaction, open);
  }

  openCursor(id: unknown, namespace: string, targets: Targets): void {
    if (id !== undefined && String(id) !== "0") this.cursors.set(String(id), { namespace, targets });
  }

  getMore(body: Document, db: string): void {
    const cursor = this.cursors.get(String(body["getMore"]));
    if (cursor !== undefined) this.command("getMore", cursor.namespace, cursor.targets, body);
    else this.count("getMore", `${db}.${String(body["collection"])}`, 1);
  }

  endTransaction(body: Document, committed: boolean): void {
    const transaction = transactionOf(body);
    const open = transaction === undefined ? undefined : this.open.get(transaction);
    if (open === undefined || transaction === undefined) return;
    this.open.delete(transaction);
    const outcome = committed ? "committed" : "aborted";
    const id = `${open.db}\0${outcome}\0${open.shards.size}`;
    const entry = this.transactions.get(id) ?? { db: open.db, outcome, shards: open.shards.size, count: 0 };
    entry.count++;
    this.transactions.set(id, entry);
  }

  reset(): void {
    this.commands = new Map();
    this.transactions = new Map();
  }

  report(): { commands: CommandCount[]; transactions: TransactionCount[] } {
    return {
      commands: [...this.commands.values()].map((entry) => ({ ...entry })),
      transactions: [...this.transactions.values()].map((entry) => ({ ...entry })),
    };
  }

  private count(command: string, namespace: string, shards: number): void {
    const id = `${namespace}\0${command}\0${shards}`;
    const entry = this.commands.get(id) ?? { namespace, command, shards, count: 0 };
    entry.count++;
    this.commands.set(id, entry);
  }
}

/** A statement of a multi-document transaction names its session and transaction number, and `autocommit: false`. */
function transactionOf(body: Document): string | undefined {
  const lsid = body["lsid"];
  if (body["autocommit"] !== false || !isDocument(lsid) || body["txnNumber"] === undefined) return undefined;
  const id: unknown = lsid["id"];
  const hex =
    typeof id === "object" && id !== null && "toString" in id ? (id as { toString(encoding: string): string }).toString("hex") : String(id);
  return `${hex}:${String(body["txnNumber"])}`;
}
