import { REQUEST_LIMITS } from "../../src/graphql/limits/operation";
import { startApiProcess } from "../support/api-process";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { errorCodes, send } from "../support/http";

// A process of its own, as a client meets it: in the test's own process, the test's writes and the server's close
// take turns on one event loop, and the body was always sent before the socket closed.
let database: TestDatabase;
let server: Awaited<ReturnType<typeof startApiProcess>>;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startApiProcess("src/cli/start.ts", { MONGODB_DB: database.db.databaseName, NODE_ENV: "development" });
}, 60_000);
afterAll(async () => {
  await server.stop();
  await database.close();
});

/** A JSON body of about `bytes`, one long string in its variables. */
const bodyOf = (bytes: number) => JSON.stringify({ query: "query ($x: String) { __typename }", variables: { x: "x".repeat(bytes) } });

describe(`a body over the limit of ${REQUEST_LIMITS.maxBodySize}`, () => {
  it("is answered 413 PAYLOAD_TOO_LARGE to Node's fetch, which is still sending 5 MB when the answer is ready", async () => {
    const answer = await send(server.url, bodyOf(5 * 1024 * 1024));
    expect([answer.status, errorCodes(answer)]).toEqual([413, ["PAYLOAD_TOO_LARGE"]]);
  });

  it("leaves the connection serving the next request", async () => {
    const tooLarge = await send(server.url, bodyOf(2 * REQUEST_LIMITS.maxBodyBytes));
    const next = await send(server.url, { query: "{ __typename }" });
    expect([tooLarge.status, next.status, next.json?.data]).toEqual([413, 200, { __typename: "Query" }]);
  });
});
