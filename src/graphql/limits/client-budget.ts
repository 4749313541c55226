import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { ClientBudgetSettings } from "../../config";
import type { CallerOf } from "../../auth/principal";
import { statusOf } from "../../error-codes";
import { LIGHT_DOCUMENTS } from "./heavy-lane";
import { RequestLimitError } from "./operation";

/**
 * Each client's budget of weighed documents, as Shopify's and GitHub's cost-based rate limits give one: a
 * client (a bearer token's name, else its address as Fastify reports it: the socket's, as the server trusts no
 * proxy header; a token held to trusted documents, a public page's, counts per address) may have the database examine so many
 * documents of heavy requests (over LIGHT_DOCUMENTS, those the heavy lane takes) per window of seconds; a
 * request its budget cannot pay is refused before it runs, and while a client owes more than its budget (the
 * refused weight is still counted), its next requests are refused before their body is read. Light requests
 * (a book, a page of the catalog, a purchase) are not counted: they cannot amplify, and the tests and benches
 * send thousands of them a second from one address. The budgets live in this process's memory: N processes
 * behind a balancer allow a client N times as much.
 */
export interface ClientBudget {
  /** Fastify `onRequest`: refuses a client in debt with 429 RATE_LIMITED before its body is read (held a second at most), and names the client. */
  readonly refuseInDebt: onRequestHookHandler;
  /** Ties the request's GraphQL context to the client the hook named, for `charge`. */
  attach(context: object, request: FastifyRequest): void;
  /** Pays `documents` from the context's client's budget; the refusal when it cannot. A context of no HTTP request pays nothing. */
  charge(context: object, documents: number): Promise<RequestLimitError | undefined>;
}

/** A client's budget: the limiter of its kind, and its key there (a token's name, an address). */
interface Client {
  limiter: RateLimiterMemory;
  key: string;
}

/**
 * Where a GraphQL context holds its client: a property, not a map keyed by the context, as Apollo hands plugins
 * a shallow copy of the context it was given (own properties, symbols included, copied).
 */
const CLIENT = Symbol("client budget");

/**
 * How long the refusal of a client in debt is held before it is sent, as nginx's `limit_req` delays what exceeds its
 * rate: a client that honours `Retry-After` never meets the wait, while one sending again as soon as it is answered
 * (16 of them sent 2,000 refusals a second in the victim bench, most of the API's CPU) sends one request a second on
 * each connection. Held, a request costs a timer and its socket, never CPU; the refusal still says how long to wait.
 */
const DEBT_WAIT_MS = 1_000;

/** A refusal's wait, whole seconds as `Retry-After` takes them, one at least. */
function retrySeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

function rateLimited(seconds: number, budget: number, windowSeconds: number): string {
  return (
    `This client has used its budget of ${budget} documents per ${windowSeconds} s of heavy requests; ` +
    `retry in ${seconds} s, and ask for less (smaller \`first\` values, fewer representations or windows) to fit.`
  );
}

/** The refusal of a client in debt, as a GraphQL error response: 429 and `Retry-After`. */
function refuseClient(reply: FastifyReply, seconds: number, message: string): void {
  void reply
    .code(statusOf("RATE_LIMITED"))
    .header("retry-after", String(seconds))
    .send({ errors: [{ message, extensions: { code: "RATE_LIMITED" } }] });
}

export function createClientBudget(settings: ClientBudgetSettings, callerOf: CallerOf): ClientBudget {
  const duration = settings.clientBudgetSeconds;
  const limiters = {
    token: new RateLimiterMemory({ points: settings.clientBudgetTokenDocuments, duration }),
    address: new RateLimiterMemory({ points: settings.clientBudgetDocuments, duration }),
  };
  const clients = new WeakMap<FastifyRequest, Client>();
  // Only a client refused in this window can be in debt: every other request passes without asking its limiter. Each
  // entry leaves when the window its refusal named ends, so clients that never come back are not kept.
  const refused = new Set<string>();
  const debtKey = (client: Client) => `${client.limiter === limiters.token ? "token" : "address"}:${client.key}`;
  const noteRefusal = (key: string, msBeforeNext: number) => {
    if (refused.has(key)) return;
    refused.add(key);
    setTimeout(() => refused.delete(key), msBeforeNext).unref();
  };

  const clientOf = (request: FastifyRequest): Client => {
    const caller = callerOf(request);
    if (caller.kind !== "token") return { limiter: limiters.address, key: request.ip };
    // A token held to trusted documents sits in a public page, every visitor's: each visitor is a client of its address.
    if (caller.trustedDocumentsOnly) return { limiter: limiters.address, key: `${caller.name}@${request.ip}` };
    return { limiter: limiters.token, key: caller.name };
  };

  return {
    refuseInDebt: (request, reply, done) => {
      const client = clientOf(request);
      clients.set(request, client);
      if (!refused.has(debtKey(client))) return done();
      // The memory store answers at once; its promise settles before the body is read.
      void client.limiter.get(client.key).then((owed) => {
        if (owed === null || owed.consumedPoints <= client.limiter.points) return done();
        const wait = Math.min(owed.msBeforeNext, DEBT_WAIT_MS);
        const seconds = retrySeconds(owed.msBeforeNext - wait);
        setTimeout(() => {
          // The client gone, or the time limit's answer sent meanwhile: nothing to say.
          if (reply.sent || reply.raw.destroyed) return;
          refuseClient(reply, seconds, rateLimited(seconds, client.limiter.points, duration));
        }, wait);
      }, done);
    },
    attach(context, request) {
      const client = clients.get(request);
      if (client) Object.assign(context, { [CLIENT]: client });
    },
    async charge(context, documents) {
      const client = (context as { [CLIENT]?: Client })[CLIENT];
      if (!client || documents <= LIGHT_DOCUMENTS) return undefined;
      try {
        await client.limiter.consume(client.key, documents);
        return undefined;
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        noteRefusal(debtKey(client), refusal.msBeforeNext);
        const seconds = retrySeconds(refusal.msBeforeNext);
        return new RequestLimitError("RATE_LIMITED", rateLimited(seconds, client.limiter.points, duration), {
          "retry-after": String(seconds),
        });
      }
    },
  };
}
