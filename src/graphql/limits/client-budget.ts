import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import type { TokenBucket } from "limiter";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { ClientBudgetSettings } from "../../config";
import type { CallerOf, Principal } from "../../auth/principal";
import { statusOf } from "../../error-codes";
import { bestEffortBreaker, type SharedRedis } from "../caching/caching";
import { LIGHT_DOCUMENTS } from "./heavy-lane";
import { RequestLimitError } from "./operation";
import { wholeBudget } from "./refilling";

/**
 * Each client's budget of weighed documents, as Shopify's and GitHub's cost-based rate limits give one: a
 * client (a bearer token's name, else its address as Fastify reports it: the socket's, or the one a proxy named in
 * TRUSTED_PROXIES forwards; a token held to trusted documents, a public page's, counts per address) may have the
 * database examine so many documents of heavy requests (over LIGHT_DOCUMENTS, those the heavy lane takes) per
 * window of seconds. The budget refills continuously, a window's worth per window (a token bucket): with
 * windows that began together, every attacker's budget was whole again at the same moment, and their heavy requests
 * came back together every 4 s (docs/benchmarks/analysis.md, issue 35). A request its budget cannot pay is refused
 * before it runs, and until its budget can pay what was refused, the client's next requests are refused before
 * their body is read. Light requests (a book, a page of the catalog, a purchase) are not counted: they cannot
 * amplify, and the tests and benches send thousands of them a second from one address.
 *
 * With a Redis (RESPONSE_CACHE_URL), the budgets are counted there, so that N processes behind a balancer allow a
 * client what one does: rate-limiter-flexible's RateLimiterRedis, its counting script replaced (its documented
 * `customIncrTtlLuaScript`) by REFILLING_BUDGET, which keeps the token bucket. While Redis does not answer, each
 * process counts its clients alone in its memory, as without a Redis, and says so once in its log. The debt that
 * refuses a client before its body is read stays in the memory of the process that refused it: the next process the
 * client reaches learns of it from the shared budget at the client's next heavy request, which it refuses.
 */
export interface ClientBudget {
  /** Fastify `onRequest`: refuses a client in debt with 429 RATE_LIMITED before its body is read (held a second at most), and names the client. */
  readonly refuseInDebt: onRequestHookHandler;
  /** Ties the request's GraphQL context to the client the hook named, for `charge`. */
  attach(context: object, request: FastifyRequest): void;
  /**
   * Pays `documents` from the context's client's budget, and, for a request refused as over the limits, one of its
   * refusals; the refusal when it cannot. A context of no HTTP request pays nothing.
   */
  charge(context: object, documents: number, overLimits: boolean): Promise<RequestLimitError | undefined>;
  /** The client a context's request is counted against, for the heavy lane's turns; undefined for a context of no HTTP request. */
  clientOf(context: object): string | undefined;
  /** The client a WebSocket's caller (its principal, and its address as `request.ip` would be) is counted against, as its HTTP requests are. */
  clientOfSocket(caller: Principal, address: string): BudgetClient;
  /** Seconds until a client this process refused is out of debt; undefined when it is not in debt. */
  debtOf(client: BudgetClient): number | undefined;
  /** As `charge`, for a client named by `clientOfSocket`. */
  chargeClient(client: BudgetClient, documents: number, overLimits: boolean): Promise<RequestLimitError | undefined>;
  /** Stops asking Redis (its connection is the response cache's to close). */
  close(): void;
}

/** The Redis the budgets are counted in, when API processes share one. */
export interface SharedBudgets {
  readonly redis: SharedRedis;
  /** Before every key, as the response cache's keys: deployments of other databases that share the Redis count apart. */
  readonly keyPrefix: string;
  readonly logger: Logger;
}

/** A client, as `clientOfSocket` names it: opaque but for its key, which the budgets count it by. */
export interface BudgetClient {
  readonly key: string;
}

/**
 * How many requests refused as over the limits (QUERY_TOO_COMPLEX and the like) an address may send per window, besides
 * the documents they pay: weighing and refusing one costs the API 2 to 3 ms of CPU, and a token's budget of 20,000
 * paid about 200 of them per window, so the four windows attackers' refusals took a sixth of the API's CPU. Eight
 * leave a client's mistakes room (a developer trying a query) and bound what refusing costs to a few a second. A
 * token, which may send for many users (a router's), has as many times more as its budget of documents is an address's.
 */
export const REFUSALS_PER_WINDOW = 8;

/** A client's two budgets: the documents its heavy requests weigh, the requests refused as over the limits. */
type BudgetKind = "documents" | "refusals";

/** A client: its key among the budgets (its kind and name), and the sizes of its budgets. */
type Client = { key: string } & Record<BudgetKind, number>;

/** Where the budgets are counted: this process's memory, or a Redis. */
interface Budgets {
  /** Takes `amount` from the client's budget (its whole size at most: a request heavier than a budget empties it), or says how many ms until it could; 0 when taken. */
  take(client: Client, kind: BudgetKind, amount: number): Promise<number>;
  /** Gives back what was taken for nothing: a refusal, when the documents it came with were not paid. */
  giveBack(client: Client, kind: BudgetKind, amount: number): Promise<void>;
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
export const DEBT_WAIT_MS = 1_000;

/** Clients whose budgets are held at once: a budget forgotten is one no client used for a window, which is whole again anyway. */
const MOST_CLIENTS = 100_000;

/** A refusal's wait, whole seconds as `Retry-After` takes them, one at least. */
function retrySeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

function rateLimited(seconds: number, { documents, refusals }: Client, windowSeconds: number): string {
  return (
    `This client has used its budget of ${documents} documents per ${windowSeconds} s of heavy requests, or of ${refusals} ` +
    `requests over the limits; retry in ${seconds} s, and ask for less (smaller \`first\` values, fewer representations or windows) to fit.`
  );
}

/** The refusal of a client in debt, as a GraphQL error response: 429 and `Retry-After`. */
function refuseClient(reply: FastifyReply, seconds: number, message: string): void {
  void reply
    .code(statusOf("RATE_LIMITED"))
    .header("retry-after", String(seconds))
    .send({ errors: [{ message, extensions: { code: "RATE_LIMITED" } }] });
}

/** The budgets in this process's memory, each a limiter TokenBucket: N processes behind a balancer allow a client N times as much. */
function inProcessBudgets(windowMs: number): Budgets {
  const budgets = new LRUCache<string, Record<BudgetKind, TokenBucket>>({ max: MOST_CLIENTS, ttl: windowMs, updateAgeOnGet: true });
  const bucketOf = (client: Client, kind: BudgetKind): TokenBucket => {
    let budget = budgets.get(client.key);
    if (!budget) {
      budget = {
        documents: wholeBudget(client.documents, client.documents, windowMs),
        refusals: wholeBudget(client.refusals, client.refusals, windowMs),
      };
      budgets.set(client.key, budget);
    }
    return budget[kind];
  };
  return {
    take: async (client, kind, amount) => {
      const bucket = bucketOf(client, kind);
      const owed = Math.min(amount, bucket.bucketSize);
      return bucket.tryRemoveTokens(owed) ? 0 : bucket.getWaitTime(owed);
    },
    giveBack: async (client, kind, amount) => {
      const bucket = bucketOf(client, kind);
      bucket.content = Math.min(bucket.bucketSize, bucket.content + amount);
    },
  };
}

/**
 * rate-limiter-flexible's counting script for RateLimiterRedis (`customIncrTtlLuaScript`), a token bucket in place of
 * its fixed window: a window's fixed start is what made attackers' budgets whole again together (issue 35), and
 * RateLimiterMemory, its documented insurance, counts the same fixed windows. The key holds what the client used and
 * when; what it used drains continuously, a whole budget per window. The library passes the points to take (ARGV[1],
 * negative to give back), the window in seconds (ARGV[2] and ARGV[4]) and the budget's size (ARGV[3]), and reads the
 * reply as {points used, ms}: used over the size is a refusal, ms then being the wait until the budget could pay. A
 * refusal takes nothing, as limiter's TokenBucket does. Redis' clock, not the processes', so that their clocks need not agree.
 */
const REFILLING_BUDGET = `
local amount = tonumber(ARGV[1])
local size = tonumber(ARGV[3])
local windowMs = tonumber(ARGV[4]) * 1000
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'used', 'at')
local used = tonumber(state[1]) or 0
local at = tonumber(state[2]) or now
used = math.max(0, used - math.max(0, now - at) * size / windowMs)
if used + amount > size then
  return {math.ceil(used + amount), math.ceil((used + amount - size) * windowMs / size)}
end
used = math.max(0, used + amount)
local wholeInMs = math.ceil(used * windowMs / size)
redis.call('HSET', KEYS[1], 'used', used, 'at', now)
redis.call('PEXPIRE', KEYS[1], wholeInMs + 1)
return {math.floor(used), wholeInMs}
`;

/**
 * The budgets counted in Redis, or, while it does not answer (an error, or no answer within RESPONSE_CACHE_TIMEOUT_MS),
 * in `alone`: a circuit breaker as the response cache's stops asking a Redis that does not answer, and logs the outage
 * once and the recovery once. Not rate-limiter-flexible's `insuranceLimiter`: it would count fixed windows during an
 * outage, and says nothing when it takes over.
 */
function sharedBudgets({ redis, keyPrefix, logger }: SharedBudgets, windowSeconds: number, alone: Budgets): Budgets & { close(): void } {
  const breaker = bestEffortBreaker(redis.timeoutMs, redis.explain, logger, {
    subject: "client budgets",
    meanwhile: "each process counts its clients' budgets alone",
    resumed: "budgets are counted across processes again",
  });
  // One limiter per budget size (an address's, a token's, of documents and of refusals): the size is the limiter's.
  const limiters = new Map<string, RateLimiterRedis>();
  const limiterOf = (kind: BudgetKind, size: number): RateLimiterRedis => {
    const name = `${kind}:${size}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: redis.client,
        useRedisPackage: true,
        // node-redis refuses commands at once while disconnected (no offline queue); this skips even sending them.
        rejectIfRedisNotReady: true,
        keyPrefix: `${keyPrefix}budget:${kind}`,
        points: size,
        duration: windowSeconds,
        customIncrTtlLuaScript: REFILLING_BUDGET,
      });
      limiters.set(name, limiter);
    }
    return limiter;
  };
  return {
    take: async (client, kind, amount) => {
      // The library counts whole points only.
      const owed = Math.ceil(Math.min(amount, client[kind]));
      const waitMs = await breaker.run(() =>
        limiterOf(kind, client[kind])
          .consume(client.key, owed)
          .then(
            () => 0,
            // A refusal is a RateLimiterRes; anything else is Redis failing, which the breaker counts.
            (refusal: unknown) => {
              if (refusal instanceof RateLimiterRes) return Math.max(1, refusal.msBeforeNext);
              throw refusal;
            },
          ),
      );
      return waitMs ?? alone.take(client, kind, amount);
    },
    giveBack: async (client, kind, amount) => {
      const given = await breaker.run(() => limiterOf(kind, client[kind]).reward(client.key, amount));
      if (given === undefined) await alone.giveBack(client, kind, amount);
    },
    close: () => breaker.shutdown(),
  };
}

export function createClientBudget(settings: ClientBudgetSettings, callerOf: CallerOf, shared?: SharedBudgets): ClientBudget {
  const windowSeconds = settings.clientBudgetSeconds;
  const windowMs = windowSeconds * 1000;
  const tokenRefusals = REFUSALS_PER_WINDOW * Math.max(1, Math.floor(settings.clientBudgetTokenDocuments / settings.clientBudgetDocuments));
  const inProcess = inProcessBudgets(windowMs);
  const redisBudgets = shared && sharedBudgets(shared, windowSeconds, inProcess);
  const budgets = redisBudgets ?? inProcess;
  const clients = new WeakMap<FastifyRequest, Client>();
  // Only a client refused can be in debt: every other request passes without asking its budget. Each entry holds
  // when its budget can pay what was refused (performance.now()), and leaves then, so clients that never come back are not kept.
  const refused = new Map<string, number>();
  const noteRefusal = (key: string, waitMs: number) => {
    const until = performance.now() + waitMs;
    if ((refused.get(key) ?? 0) >= until) return;
    refused.set(key, until);
    setTimeout(() => refused.get(key) === until && refused.delete(key), waitMs).unref();
  };

  const clientOfCaller = (caller: Principal, ip: string): Client => {
    const address = { documents: settings.clientBudgetDocuments, refusals: REFUSALS_PER_WINDOW };
    if (caller.kind !== "token") return { ...address, key: `address:${ip}` };
    // A token held to trusted documents sits in a public page, every visitor's: each visitor is a client of its address.
    if (caller.trustedDocumentsOnly) return { ...address, key: `address:${caller.name}@${ip}` };
    return { documents: settings.clientBudgetTokenDocuments, refusals: tokenRefusals, key: `token:${caller.name}` };
  };
  const clientOfRequest = (request: FastifyRequest): Client => clientOfCaller(callerOf(request), request.ip);
  /** Seconds until the client's budget can pay what it was refused; undefined when it is in no debt. */
  const debtOf = (client: Client): number | undefined => {
    const owedMs = (refused.get(client.key) ?? 0) - performance.now();
    return owedMs > 0 ? retrySeconds(owedMs) : undefined;
  };
  const chargeClient = async (client: Client, documents: number, overLimits: boolean): Promise<RequestLimitError | undefined> => {
    if (documents <= LIGHT_DOCUMENTS) return undefined;
    let waitMs = overLimits ? await budgets.take(client, "refusals", 1) : 0;
    if (waitMs === 0) {
      waitMs = await budgets.take(client, "documents", documents);
      // A refusal is paid only when the documents are, so that a client refused for documents keeps its refusals.
      if (waitMs > 0 && overLimits) await budgets.giveBack(client, "refusals", 1);
    }
    if (waitMs === 0) return undefined;
    noteRefusal(client.key, waitMs);
    const seconds = retrySeconds(waitMs);
    return new RequestLimitError("RATE_LIMITED", rateLimited(seconds, client, windowSeconds), {
      "retry-after": String(seconds),
    });
  };

  return {
    refuseInDebt: (request, reply, done) => {
      const client = clientOfRequest(request);
      clients.set(request, client);
      const until = refused.get(client.key);
      if (until === undefined) return done();
      const owedMs = until - performance.now();
      if (owedMs <= 0) return done();
      const wait = Math.min(owedMs, DEBT_WAIT_MS);
      const seconds = retrySeconds(owedMs - wait);
      setTimeout(() => {
        // The client gone, or the time limit's answer sent meanwhile: nothing to say.
        if (reply.sent || reply.raw.destroyed) return;
        refuseClient(reply, seconds, rateLimited(seconds, client, windowSeconds));
      }, wait);
    },
    attach(context, request) {
      const client = clients.get(request);
      if (client) Object.assign(context, { [CLIENT]: client });
    },
    async charge(context, documents, overLimits) {
      const client = (context as { [CLIENT]?: Client })[CLIENT];
      return client ? chargeClient(client, documents, overLimits) : undefined;
    },
    clientOf(context) {
      return (context as { [CLIENT]?: Client })[CLIENT]?.key;
    },
    clientOfSocket: clientOfCaller,
    debtOf: (client) => debtOf(client as Client),
    chargeClient: (client, documents, overLimits) => chargeClient(client as Client, documents, overLimits),
    close: () => redisBudgets?.close(),
  };
}
