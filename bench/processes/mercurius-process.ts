import Fastify from "fastify";
import mercurius from "mercurius";
import type { Db } from "mongodb";
import { openPeerDatabase, resolvers, typeDefs } from "./peer";

// Mercurius's documented way to type its context: what `context` below adds, which the shared resolvers read.
declare module "mercurius" {
  interface MercuriusContext {
    db: Db;
  }
}

/**
 * The fastest Node GraphQL server a team would choose for speed (issue 56): Fastify 5 with Mercurius 16, which
 * compiles each operation with graphql-jit once it has been seen (`jit: 1`, its documented option), with the
 * schema and resolvers of the bare Apollo peer (`peer.ts`). Fastify's and Mercurius's defaults otherwise: no
 * logging (Fastify's default), no limits, no DataLoader. It lives in bench/ and nowhere in the product.
 * Prints its URL once it listens.
 */

async function main(): Promise<void> {
  const { db, close } = await openPeerDatabase();
  const app = Fastify();
  await app.register(mercurius, { schema: typeDefs, resolvers, jit: 1, context: () => ({ db }) });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  process.stdout.write(`${address}/graphql\n`);
  process.once("SIGTERM", () => void app.close().then(() => close().then(() => process.exit(0))));
}

void main().catch((error: unknown) => {
  process.stderr.write(`mercurius-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
