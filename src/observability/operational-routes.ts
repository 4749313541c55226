import type { FastifyPluginAsync } from "fastify";
import type { Db } from "mongodb";
import type { Logger } from "pino";
import { isDatabaseReachable } from "../db/connection";
import type { ServerMetrics } from "./metrics";

export interface OperationalRouteOptions {
  db: Db;
  logger: Logger;
  metrics: ServerMetrics;
  /** False while the database's indexes are not known to be in place (see `openDatabase`); /readyz answers 503 then. Absent: they are. */
  indexesInPlace?: (() => boolean) | undefined;
  /** False when the process cannot recover its database connection by itself (see `watchConnection`); /healthz answers 503 then. Absent: it can. */
  recoverable?: (() => boolean) | undefined;
}

/** `/healthz` (restart me?), `/readyz` (send me traffic?) and `/metrics` (Prometheus), beside the API's `/graphql`: a Fastify plugin. */
export function operationalRoutes(options: OperationalRouteOptions): FastifyPluginAsync {
  return async (routes) => {
    routes.get("/healthz", async (_request, reply) => {
      const recoverable = options.recoverable?.() ?? true;
      return reply
        .code(recoverable ? 200 : 503)
        .send({ status: recoverable ? "ok" : "database connection not recovering: restart the process" });
    });
    routes.get("/readyz", async (_request, reply) => {
      const status = !(await isDatabaseReachable(options.db))
        ? "database unreachable"
        : (options.indexesInPlace?.() ?? true)
          ? "ready"
          : "indexes not in place";
      return reply.code(status === "ready" ? 200 : 503).send({ status });
    });
    routes.get("/metrics", async (_request, reply) => {
      try {
        const body = await options.metrics.registry.metrics();
        return reply.type(options.metrics.registry.contentType).send(body);
      } catch (error) {
        options.logger.warn({ err: error }, "metrics scrape failed");
        return reply.code(503).type("text/plain; charset=utf-8").send("metrics unavailable: the database did not answer\n");
      }
    });
  };
}
