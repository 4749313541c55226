import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";

/** A request's client address: what `request.ip` is for an HTTP request, for a WebSocket's upgrade request too. */
export type ClientAddressOf = (request: IncomingMessage) => string;

/**
 * The client address as Fastify's `request.ip` takes it with `trustProxy` set to `trustedProxies` (TRUSTED_PROXIES):
 * the socket's, or the last address of X-Forwarded-For that no trusted proxy sent, with the same library Fastify uses,
 * so that a WebSocket's connections are counted against the same client as its HTTP requests. None trusted: the socket's.
 */
export function clientAddressOf(trustedProxies: readonly string[] = []): ClientAddressOf {
  if (trustedProxies.length === 0) return (request) => request.socket.remoteAddress ?? "";
  const trusted = proxyAddr.compile([...trustedProxies]);
  return (request) => proxyAddr(request, trusted);
}
