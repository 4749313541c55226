import type { Db, Document, MongoClient } from "mongodb";
import type { PurchaseTransactions } from "../config";

/**
 * True when a server's `hello` reply says it is a replica set member (`setName`) or a mongos
 * (`msg: "isdbgrid"`): the deployments where MongoDB offers transactions. A standalone mongod, and the
 * offline stand-in unless started as a replica set, answer with neither, and refuse transaction fields with code 20.
 */
export function offersTransactions(hello: Document): boolean {
  return typeof hello.setName === "string" || hello.msg === "isdbgrid";
}

/**
 * Whether keyed purchases run in transactions: when the setting allows it and the deployment offers
 * them. With the setting off, the deployment is never asked.
 */
export async function usesTransactions(setting: PurchaseTransactions, askHello: () => Promise<Document>): Promise<boolean> {
  return setting === "auto" && offersTransactions(await askHello());
}

// A deployment does not change kind under a running client, so one hello per client is enough.
const helloReplies = new WeakMap<MongoClient, Promise<Document>>();

/**
 * The `hello` reply of the deployment `db` lives on, asked once per client. A failed ask (the database
 * is away) is forgotten, so the next caller asks again.
 */
export function helloOf(db: Db): Promise<Document> {
  let reply = helloReplies.get(db.client);
  if (reply === undefined) {
    reply = db.admin().command({ hello: 1 });
    helloReplies.set(db.client, reply);
    reply.catch(() => helloReplies.delete(db.client));
  }
  return reply;
}
