import http from "node:http";
import { setTimeout } from "node:timers/promises";
import type { RunningServer } from "../../src/graphql/transport/server";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { customers, seedBook } from "../support/factories";
import { startTestHttpServer } from "../support/http";

// Past Node's default keep-alive timeout (5 s), after which the connection used to be closed under the client.
const PAUSE_MS = 6_000;

let database: TestDatabase;
let server: RunningServer;
let connections = 0;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
  server.httpServer.on("connection", () => void (connections += 1));
  await seedBook(database.db, "1", customers(3));
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

/** A JSON POST on the agent's connection, as a client that keeps its connections open sends it. */
function post(agent: http.Agent, query: string): Promise<{ status: number; keepAlive: string | undefined; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(server.url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          keepAlive: response.headers["keep-alive"] as string | undefined,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      );
    });
    request.on("error", reject);
    request.end(JSON.stringify({ query }));
  });
}

describe("a long-lived connection", () => {
  it("is told it may stay idle 65 s, and is reused without error after a pause longer than Node's default 5 s", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await post(agent, `{ book(id: "1") { title } }`);
      await setTimeout(PAUSE_MS);
      const after = await post(agent, `{ book(id: "1") { purchaseCount } }`);

      expect(first.keepAlive).toBe("timeout=65");
      expect(after).toEqual({ status: 200, keepAlive: "timeout=65", body: { data: { book: { purchaseCount: 3 } } } });
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
