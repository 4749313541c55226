import { Readable } from "node:stream";
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLRequest } from "@apollo/server";
import type { FastifyRequest, RouteHandlerMethod } from "fastify";

/**
 * Apollo Server on Fastify through `executeHTTPGraphQLRequest`, Apollo's documented interface for integrations:
 * Fastify has parsed the body (`bodyLimit`, its JSON parser) and run the limits' hooks before this runs; this
 * hands Apollo the method, headers, query string (cut from the URL at its `?`, no URL parsing) and body, and
 * sends Apollo's answer with its status and headers. A request the time limit has answered already
 * (REQUEST_TIMEOUT) gets nothing more: its late answer is dropped, whether Apollo answered or failed.
 * Both header maps are emptied once read, and the request Apollo was handed lets go of its parsed body: Apollo's
 * gateway interface keeps each request's context, this request and the maps in it, past every scavenge until a full
 * collection (docs/benchmarks/analysis.md), and what is emptied no longer keeps its tables and objects there.
 */
export function graphqlHandler<TContext extends BaseContext>(
  server: ApolloServer<TContext>,
  context: (request: FastifyRequest) => Promise<TContext>,
): RouteHandlerMethod {
  server.assertStarted("graphqlHandler()");
  return async (request, reply) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    const queryAt = request.url.indexOf("?");
    const httpGraphQLRequest: HTTPGraphQLRequest = {
      method: request.method.toUpperCase(),
      headers,
      search: queryAt === -1 ? "" : request.url.slice(queryAt),
      body: request.body,
    };
    try {
      const answer = await server.executeHTTPGraphQLRequest({ httpGraphQLRequest, context: () => context(request) });
      if (reply.sent) return reply;
      for (const [key, value] of answer.headers) reply.header(key, value);
      answer.headers.clear();
      reply.code(answer.status ?? 200);
      // Incremental delivery (@defer), which this API's schema does not enable, streams each part as it comes.
      return reply.send(answer.body.kind === "complete" ? answer.body.string : Readable.from(answer.body.asyncIterator));
    } catch (error) {
      if (reply.sent) return reply;
      throw error;
    } finally {
      headers.clear();
      httpGraphQLRequest.body = undefined;
    }
  };
}
