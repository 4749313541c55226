import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginDrainHttpServer } from "@apollo/server/plugin/drainHttpServer";
import { expressMiddleware } from "@as-integrations/express5";
import cors from "cors";
import express from "express";
import type { Db } from "mongodb";
import type { Logger } from "pino";
import type { OutlierSettings } from "../config";
import { isDatabaseReachable } from "../db/connection";
import { createContext, type GraphQLContext } from "./context";
import { createErrorFormatter } from "./errors";
import { resolvers } from "./resolvers";

export const typeDefs = readFileSync(join(__dirname, "..", "..", "schema.graphql"), "utf8");

export interface ServerOptions {
  db: Db;
  settings: OutlierSettings;
  logger: Logger;
  production: boolean;
  /** Only the benchmark turns this off, to measure the N+1 queries that batching avoids. */
  batchLoads?: boolean;
}

/** The GraphQL server on its own, as tests drive it with `executeOperation`. */
export function createApolloServer({ logger, production }: Pick<ServerOptions, "logger" | "production">, httpServer?: http.Server) {
  return new ApolloServer<GraphQLContext>({
    typeDefs,
    resolvers,
    introspection: !production,
    includeStacktraceInErrorResponses: !production && process.env.NODE_ENV !== "test",
    formatError: createErrorFormatter(logger, production),
    plugins: httpServer ? [ApolloServerPluginDrainHttpServer({ httpServer })] : [],
  });
}

export interface RunningServer {
  url: string;
  httpServer: http.Server;
  /** Stops accepting connections, lets requests in flight finish, then resolves. */
  stop(): Promise<void>;
}

/** Serves `/graphql`, `/healthz` and `/readyz` on `port` (0 for any free port). */
export async function startHttpServer(options: ServerOptions, port: number): Promise<RunningServer> {
  const app = express();
  const httpServer = http.createServer(app);
  const apollo = createApolloServer(options, httpServer);
  await apollo.start();

  app.get("/healthz", (_request, response) => void response.json({ status: "ok" }));
  app.get("/readyz", async (_request, response) => {
    const ready = await isDatabaseReachable(options.db);
    response.status(ready ? 200 : 503).json({ status: ready ? "ready" : "database unreachable" });
  });
  app.use(
    "/graphql",
    cors(),
    express.json({ limit: "100kb" }),
    expressMiddleware(apollo, { context: async () => createContext(options.db, options.settings, options.batchLoads) }),
  );

  await new Promise<void>((resolve) => httpServer.listen(port, resolve));
  const { port: boundPort } = httpServer.address() as AddressInfo;
  return { url: `http://localhost:${boundPort}/graphql`, httpServer, stop: () => apollo.stop() };
}
