import autocannon from "autocannon";
import type { Db } from "mongodb";
import pino from "pino";
import { DEFAULT_PURCHASE_BATCH_MAX, type OutlierSettings } from "../../src/config";
import { startHttpServer, type RunningServer } from "../../src/graphql/transport/server";

/** The HTTP kit the scenarios share: a request's body, one request, a load, and the API in the bench's own process. */

export interface Scenario {
  name: string;
  /** The body of the request numbered `index`; `connection` is autocannon's per-connection context. */
  body(index: number, connection: object): string;
}

export function graphql(query: string, variables: Record<string, unknown>): string {
  return JSON.stringify({ query, variables });
}

export async function post(url: string, body: string): Promise<unknown> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return response.json();
}

export function load(url: string, scenario: Scenario, options: Partial<autocannon.Options>, onResponse?: autocannon.Request["onResponse"]) {
  let index = 0;
  return autocannon({
    url,
    ...options,
    requests: [
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        setupRequest: (request, connection) => ({ ...request, body: scenario.body(index++, connection) }),
        onResponse,
      },
    ],
  });
}

/**
 * Budgets no client of these benchmarks spends: autocannon sends every connection from 127.0.0.1, and the HTTP
 * section's amplifiers (heavy, back to back) share that address with the client it measures beside them, which the
 * default budget (client-budget.ts) would then refuse; the victim section measures the budgets, with its clients on
 * addresses of their own.
 */
const UNSPENT_CLIENT_BUDGET = { clientBudgetDocuments: 1_000_000_000, clientBudgetTokenDocuments: 1_000_000_000, clientBudgetSeconds: 1 };

export async function withServer<T>(
  db: Db,
  settings: OutlierSettings,
  batchLoads: boolean,
  run: (url: string) => Promise<T>,
  purchaseBatching = true,
): Promise<T> {
  const batching = { purchaseBatching, purchaseBatchMax: DEFAULT_PURCHASE_BATCH_MAX };
  const options = {
    db,
    settings,
    logger: pino({ level: "silent" }),
    production: true,
    batchLoads,
    purchaseBatching: batching,
    clientBudget: UNSPENT_CLIENT_BUDGET,
  };
  const server: RunningServer = await startHttpServer(options, 0);
  try {
    // The load stays on the loopback interface.
    return await run(server.url.replace("localhost", "127.0.0.1"));
  } finally {
    await server.stop();
  }
}
