import http from "node:http";
import type { GraphQLFormattedError } from "graphql";
import { track } from "./in-flight";

/** An answer as a client on another machine reads it: status, `Retry-After`, and the JSON body. */
export interface AddressedAnswer {
  status: number;
  retryAfter: string | undefined;
  json?: { data?: unknown; errors?: GraphQLFormattedError[] };
}

/** One keep-alive agent per local address: a client of its own, as another machine is. */
const agents = new Map<string, http.Agent>();

function agentFor(localAddress: string): http.Agent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}

/**
 * POSTs `body` (a string as it is, anything else as JSON) from `localAddress` (127.0.0.2 and on: every address of
 * 127.0.0.0/8 is this machine's loopback), so that the API sees a client of another address than 127.0.0.1.
 */
export function sendFrom(
  url: string,
  localAddress: string,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json" },
): Promise<AddressedAnswer> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return track(
    new Promise<AddressedAnswer>((resolve, reject) => {
      const request = http.request(url, { method: "POST", headers, agent: agentFor(localAddress) }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const raw = Buffer.concat(chunks).toString();
          const json = (response.headers["content-type"] ?? "").includes("json") ? JSON.parse(raw) : undefined;
          const retryAfter = response.headers["retry-after"];
          resolve({ status: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, json });
        });
        response.on("error", reject);
      });
      request.on("error", reject);
      request.end(text);
    }),
  );
}

/** Closes every address's idle connections, for a test's end. */
export function closeAddressedClients(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}
