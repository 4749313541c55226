import type { MongoClient } from "mongodb";
import { RENEW_AFTER_DELETES, RenewingSet, trackInRenewingSets } from "../../src/db/renewing-set";

// Issue 39: a long-lived Set that every operation adds to and deletes from keeps each member past the scavenges
// until a full collection (docs/benchmarks/analysis.md); a RenewingSet moves its members to fresh storage.

/** The Set a RenewingSet keeps its members in, to tell one storage from the next. */
const storageOf = (set: RenewingSet<number>) => (set as unknown as { members: Set<number> }).members;

describe("a renewing set", () => {
  it("holds what was added until it is deleted, as a Set does, across renewals of its storage", () => {
    const set = new RenewingSet<number>();
    for (let value = 0; value < 3 * RENEW_AFTER_DELETES; value += 1) set.add(value);
    for (let value = 0; value < 3 * RENEW_AFTER_DELETES; value += 2) set.delete(value);
    const odd = Array.from({ length: (3 * RENEW_AFTER_DELETES) / 2 }, (_, index) => 2 * index + 1);
    expect([...set]).toEqual(odd);
    expect(Array.from(set, (value) => value * 10)).toEqual(odd.map((value) => value * 10));
    expect(set.size).toBe(odd.length);
    expect([set.has(1), set.has(2), set.delete(2), set.delete(3), set.has(3)]).toEqual([true, false, false, true, false]);
    set.clear();
    expect(set.size).toBe(0);
  });

  it("moves its members to a fresh Set at every RENEW_AFTER_DELETES-th deletion, and not before", () => {
    const set = new RenewingSet<number>().add(-1);
    const first = storageOf(set);
    for (let value = 0; value < RENEW_AFTER_DELETES - 1; value += 1) set.add(value).delete(value);
    expect(storageOf(set)).toBe(first);
    set.add(0).delete(0);
    expect(storageOf(set)).not.toBe(first);
    expect([...storageOf(set)]).toEqual([-1]);
  });

  it("refuses a client whose driver no longer tracks its sessions and cursors in Sets of client.s, naming the file to mend", () => {
    const moved = { s: { activeSessions: [], activeCursors: new Set() } } as unknown as MongoClient;
    expect(() => trackInRenewingSets(moved)).toThrow(
      /no longer tracks its sessions and cursors in client\.s: see src\/db\/renewing-set\.ts/,
    );
  });
});
