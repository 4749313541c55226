import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { ApolloServer } from "@apollo/server";
import { expressMiddleware } from "@as-integrations/express5";
import cors from "cors";
import express from "express";
import { openPeerDatabase, resolvers, typeDefs, type PeerContext } from "./peer";

/**
 * The straightforward server the API is compared with: Apollo Server 5 on Express with the driver,
 * as a developer writes it in an afternoon from Apollo's own guide, with the schema and resolvers
 * both peers share (`peer.ts`). No limits, no access checks, no logs, no metrics, no DataLoader.
 * It lives in bench/ and nowhere in the product. Prints its URL once it listens.
 */

async function main(): Promise<void> {
  const { db, close } = await openPeerDatabase();
  const app = express();
  const httpServer = http.createServer(app);
  const apollo = new ApolloServer<PeerContext>({ typeDefs, resolvers });
  await apollo.start();
  app.use("/graphql", cors(), express.json(), expressMiddleware(apollo, { context: async () => ({ db }) }));
  await once(httpServer.listen(0, "127.0.0.1"), "listening");
  process.stdout.write(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/graphql\n`);
  process.once("SIGTERM", () => void apollo.stop().then(() => close().then(() => process.exit(0))));
}

void main().catch((error: unknown) => {
  process.stderr.write(`bare-api-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
