import { setTimeout as sleep } from "node:timers/promises";
import type { Collection } from "mongodb";
import { useTestDatabase } from "./connect";

// A replica set: MONGODB_REPLICA_SET_URI when set, else the stand-in as a one-member set.
const target = useTestDatabase("outside_writes", { offlineServer: { replicaSet: "rs0" } });

interface Tallied {
  _id: number;
  /** Increments by the transaction. */
  inside?: number;
  /** Increments by the write outside it. */
  outside?: number;
}

type OutsideWrite = (collection: Collection<Tallied>) => Promise<unknown>;

const OUTSIDE_WRITES: Record<string, OutsideWrite> = {
  updateOne: (collection) => collection.updateOne({ _id: 1 }, { $inc: { outside: 1 } }),
  findOneAndUpdate: (collection) => collection.findOneAndUpdate({ _id: 1 }, { $inc: { outside: 1 } }),
};

const variants = (["updateOne", "findOneAndUpdate"] as const).flatMap((write) =>
  (["commits", "aborts"] as const).flatMap((end) => [0, 10, 100, 900].map((delayMs) => ({ write, end, delayMs }))),
);

/*
 * The lost update of issue 28: a transaction writes a document, a plain write of the same document
 * is sent (and must wait), the transaction writes it again and ends. The variants run one after the
 * other on one client, so the driver hands the plain writes pooled sessions that earlier ones used,
 * as an application's writes get them.
 */
describe("a write outside a transaction to a document the transaction wrote", () => {
  it.each(variants)(
    "waits, then is in the final document: $write, the transaction $end, $delayMs ms between steps",
    async ({ write, end, delayMs }) => {
      const collection = target.db.collection<Tallied>(target.freshCollection().collectionName);
      await collection.insertOne({ _id: 1 });
      const session = target.client.startSession();
      session.startTransaction();
      await collection.updateOne({ _id: 1 }, { $inc: { inside: 1 } }, { session });
      await sleep(delayMs);
      let settled = false;
      const outside = OUTSIDE_WRITES[write]?.(collection).finally(() => (settled = true));
      await sleep(delayMs);
      await collection.updateOne({ _id: 1 }, { $inc: { inside: 1 } }, { session });
      await sleep(delayMs);
      expect(settled).toBe(false);
      await (end === "commits" ? session.commitTransaction() : session.abortTransaction());
      await outside;
      await session.endSession();
      expect(await collection.findOne({ _id: 1 })).toEqual(end === "commits" ? { _id: 1, inside: 2, outside: 1 } : { _id: 1, outside: 1 });
    },
  );
});
