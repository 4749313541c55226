import { dirname, join } from "node:path";
import { ApolloServer, HeaderMap } from "@apollo/server";
import { buildSchema } from "graphql";
import { compiledExecution } from "../../src/graphql/compiled-execution";
import type { GatewayRequest } from "../../src/graphql/gateway-request";

// Issue 39: an object with accessors of its own, made per request, keeps what its accessors' closures reach past
// every scavenge until a full collection (docs/benchmarks/analysis.md). Apollo makes the gateway's request so.

const schema = buildSchema("type Query { hello: String }");

/**
 * An Apollo Server on compiled execution whose executor hands `seen` each gateway request, then sets the answer's
 * status and a header through it, as the gateway interface lets an executor do.
 */
async function serveThroughCompiledExecution(seen: GatewayRequest[]): Promise<ApolloServer> {
  const gateway = compiledExecution({ schema, compiledSchema: schema, interpreted: () => false });
  const server = new ApolloServer({
    gateway: {
      ...gateway,
      load: async (options) => {
        const { executor } = await gateway.load(options);
        return {
          executor: async (request) => {
            seen.push(request);
            request.response?.http?.headers.set("x-executed", request.request.http?.headers.get("x-sent") ?? "");
            if (request.response?.http) request.response.http.status = 203;
            return executor!(request);
          },
        };
      },
    },
  });
  await server.start();
  return server;
}

describe("the gateway requests Apollo hands compiled execution", () => {
  it("have no accessors of their own, and their status and headers still reach Apollo's answer", async () => {
    const seen: GatewayRequest[] = [];
    const server = await serveThroughCompiledExecution(seen);
    try {
      const answer = await server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: "POST",
          headers: new HeaderMap([
            ["content-type", "application/json"],
            ["x-sent", "yes"],
          ]),
          search: "a=1",
          body: { query: "{ __typename }" },
        },
        context: async () => ({}),
      });
      expect(seen).toHaveLength(1);
      const [request] = seen;
      const head = request!.response!.http!;
      expect(Object.getOwnPropertyDescriptor(head, "status")).toBeUndefined();
      expect(head.status).toBe(203);
      expect(request!.request.http?.url).toBe("https://unknown-url.invalid/?a=1");
      expect(answer.status).toBe(203);
      expect(answer.headers.get("x-executed")).toBe("yes");
      expect(answer.body).toEqual({ kind: "complete", string: '{"data":{"__typename":"Query"}}\n' });
    } finally {
      await server.stop();
    }
  });

  it("refuse to start, naming the file to mend, when an Apollo release no longer builds them where the API replaces the function", () => {
    const apolloModule = join(dirname(require.resolve("@apollo/server")), "utils", "makeGatewayGraphQLRequestContext.js");
    jest.isolateModules(() => {
      jest.doMock(apolloModule, () => ({}));
      const { buildGatewayRequestsWithoutOwnAccessors } =
        jest.requireActual<typeof import("../../src/graphql/gateway-request")>("../../src/graphql/gateway-request");
      expect(() => buildGatewayRequestsWithoutOwnAccessors()).toThrow(
        /no longer builds gateway requests .*src\/graphql\/gateway-request\.ts/,
      );
    });
  });
});
