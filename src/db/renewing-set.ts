import type { MongoClient } from "mongodb";

/**
 * Deletions after which a RenewingSet moves its members to a fresh Set: far fewer than a busy API's operations between
 * two scavenges (hundreds), so its storage is always young, and copying the few members in flight costs next to nothing.
 */
export const RENEW_AFTER_DELETES = 64;

/**
 * A Set whose storage is renewed every RENEW_AFTER_DELETES deletions. A Set in the old generation that every operation
 * adds to and deletes from keeps each member it held past every scavenge, until the next mark-compact (measured in
 * docs/benchmarks/analysis.md; the likely path is V8 linking each hash table a Set outgrows to its successor, for
 * iterators still on it). A Set never old enough for that holds only its members. It has what the driver uses of a
 * Set (add, delete, has, clear, size, iteration).
 */
export class RenewingSet<T> implements Iterable<T> {
  private members: Set<T>;
  private deletes = 0;

  constructor(members: Iterable<T> = []) {
    this.members = new Set(members);
  }

  get size(): number {
    return this.members.size;
  }
  add(value: T): this {
    this.members.add(value);
    return this;
  }
  delete(value: T): boolean {
    const deleted = this.members.delete(value);
    this.deletes += 1;
    if (this.deletes >= RENEW_AFTER_DELETES) {
      this.deletes = 0;
      this.members = new Set(this.members);
    }
    return deleted;
  }
  clear(): void {
    this.members = new Set();
  }
  has(value: T): boolean {
    return this.members.has(value);
  }
  [Symbol.iterator](): SetIterator<T> {
    return this.members.values();
  }
}

/** Where the driver (mongodb 7) tracks every session and cursor it starts, to end them when the client closes. */
interface TrackingClient {
  s?: { activeSessions?: unknown; activeCursors?: unknown };
}

/**
 * Has `client` track its sessions and cursors in RenewingSets. The driver adds every operation's session and every
 * cursor to one of two Sets of the client's and deletes it when it ends: each of the API's reads then kept its
 * cursor, session and reply past the scavenges. The driver reads both Sets from the client at each use, and ends
 * what they hold when the client closes, as before. Throws if a driver release no longer tracks them so.
 */
export function trackInRenewingSets(client: MongoClient): void {
  const state = (client as unknown as TrackingClient).s;
  if (!(state?.activeSessions instanceof Set) || !(state.activeCursors instanceof Set)) {
    throw new Error("the mongodb driver no longer tracks its sessions and cursors in client.s: see src/db/renewing-set.ts");
  }
  state.activeSessions = new RenewingSet(state.activeSessions);
  state.activeCursors = new RenewingSet(state.activeCursors);
}
