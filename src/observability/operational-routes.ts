import { Router } from "express";
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

/** `/healthz` (restart me?), `/readyz` (send me traffic?) and `/metrics` (Prometheus), beside the API's `/graphql`. */
export function operationalRoutes(options: OperationalRouteOptions): Router {
  const routes = Router();
  routes.get("/healthz", (_request, response) => {
    const recoverable = options.recoverable?.() ?? true;
    response
      .status(recoverable ? 200 : 503)
      .json({ status: recoverable ? "ok" : "database connection not recovering: restart the process" });
  });
  routes.get("/readyz", async (_request, response) => {
    const status = !(await isDatabaseReachable(options.db))
      ? "database unreachable"
      : (options.indexesInPlace?.() ?? true)
        ? "ready"
        : "indexes not in place";
    response.status(status === "ready" ? 200 : 503).json({ status });
  });
  routes.get("/metrics", async (_request, response) => {
    try {
      const body = await options.metrics.registry.metrics();
      response.type(options.metrics.registry.contentType).send(body);
    } catch (error) {
      options.logger.warn({ err: error }, "metrics scrape failed");
      response.status(503).type("text/plain").send("metrics unavailable: the database did not answer\n");
    }
  });
  return routes;
}
