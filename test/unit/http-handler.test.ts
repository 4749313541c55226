import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest, type HTTPGraphQLResponse } from "@apollo/server";
import fastify from "fastify";
import { graphqlHandler } from "../../src/graphql/transport/http-handler";

// Issue 39: Apollo's gateway interface keeps each request's context past the scavenges until a full collection
// (docs/benchmarks/analysis.md); the handler empties what it handed Apollo in it once the answer is out.

/**
 * POSTs `{ __typename }` with `headers` through the handler to a stand-in for Apollo, which gives `received` the
 * request it was handed (and what its body was then) and answers with the header map `answerHeaders` makes of it.
 */
async function postThroughHandler(
  headers: Record<string, string>,
  received: (request: HTTPGraphQLRequest, bodyThen: unknown) => void,
  answerHeaders: (request: HTTPGraphQLRequest) => HeaderMap = () => new HeaderMap(),
): Promise<Response> {
  const apollo = {
    assertStarted: () => {},
    executeHTTPGraphQLRequest: async ({ httpGraphQLRequest }: { httpGraphQLRequest: HTTPGraphQLRequest }) => {
      received(httpGraphQLRequest, httpGraphQLRequest.body);
      const answer: HTTPGraphQLResponse = {
        status: 200,
        headers: answerHeaders(httpGraphQLRequest),
        body: { kind: "complete", string: '{"data":{"__typename":"Query"}}' },
      };
      return answer;
    },
  } as unknown as ApolloServer;
  const app = fastify();
  app.post(
    "/graphql",
    graphqlHandler(apollo, async () => ({})),
  );
  try {
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    // Read whole before the server closes; the caller reads the answer from its copy.
    await response.clone().text();
    return response;
  } finally {
    await app.close();
  }
}

describe("the GraphQL handler's header maps", () => {
  it("hand Apollo the request's headers and the client Apollo's, then are emptied once the answer is sent", async () => {
    const seen: { request?: HeaderMap; answer?: HeaderMap } = {};
    const response = await postThroughHandler(
      { "x-sent": "yes" },
      (request) => (seen.request = request.headers),
      (request) => (seen.answer = new HeaderMap([["x-seen", request.headers.get("x-sent") ?? "nothing"]])),
    );
    expect(response.headers.get("x-seen")).toBe("yes");
    expect(await response.json()).toEqual({ data: { __typename: "Query" } });
    expect(seen.request?.size).toBe(0);
    expect(seen.answer?.size).toBe(0);
  });
});

describe("the request the GraphQL handler hands Apollo", () => {
  it("carries the parsed body, then lets go of it once the answer is sent", async () => {
    const seen: { request?: HTTPGraphQLRequest; bodyThen?: unknown } = {};
    const response = await postThroughHandler({}, (request, bodyThen) => Object.assign(seen, { request, bodyThen }));
    expect(await response.json()).toEqual({ data: { __typename: "Query" } });
    expect(seen.bodyThen).toEqual({ query: "{ __typename }" });
    expect(seen.request?.method).toBe("POST");
    expect(seen.request?.body).toBeUndefined();
  });
});
