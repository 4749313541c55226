import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLResponse } from "@apollo/server";
import type { Request, RequestHandler, Response } from "express";

/**
 * Apollo Server on Express through `executeHTTPGraphQLRequest`, Apollo's documented interface for integrations,
 * doing what `@as-integrations/express5` does with less per request, which a `{ __typename }` profile showed
 * (docs/benchmarks/analysis.md): the query string is cut from the URL instead of `url.parse` of it (7 % of the
 * API's CPU on Node 24), and a POST's answer is written in one `end()` of a string instead of Express' `send`,
 * which turns the body into a Buffer and hashes it for an ETag no client revalidates a POST with. A GET's answer
 * still goes through `send`, which answers a matching `If-None-Match` with 304. Errors go to Express' error
 * handlers, as the integration's do (a late answer after REQUEST_TIMEOUT included).
 */
export function graphqlHandler<TContext extends BaseContext>(
  server: ApolloServer<TContext>,
  context: (request: Request) => Promise<TContext>,
): RequestHandler {
  server.assertStarted("graphqlHandler()");
  return async (request, response) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    const queryAt = request.url.indexOf("?");
    const answer = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: request.method.toUpperCase(),
        headers,
        search: queryAt === -1 ? "" : request.url.slice(queryAt),
        body: request.body as unknown,
      },
      context: () => context(request),
    });
    await send(request, response, answer);
  };
}

async function send(request: Request, response: Response, { headers, status, body }: HTTPGraphQLResponse): Promise<void> {
  for (const [key, value] of headers) response.setHeader(key, value);
  response.statusCode = status ?? 200;
  if (body.kind === "complete") {
    if (request.method === "GET") {
      response.send(body.string);
      return;
    }
    response.setHeader("content-length", Buffer.byteLength(body.string));
    response.end(body.string);
    return;
  }
  // Incremental delivery (@defer), which this API's schema does not enable: each part as it comes.
  for await (const part of body.asyncIterator) response.write(part);
  response.end();
}
