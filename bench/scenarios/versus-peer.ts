import { randomBytes } from "node:crypto";
import { setTimeout } from "node:timers/promises";
import { commandsSent, cpuMsOf, loadFromChild, scrapeCost, SETTLE_MS, startChild, type Child } from "../kit/children";
import { graphql, type Scenario } from "../kit/http";
import type { Plan } from "../kit/plan";
import type { Progress } from "../kit/progress";
import { ratio, sum } from "../kit/stats";
import { listingScenario, ONE_ROUND_TRIP, OVERHEAD, startApiOnShelf, withShelfApart, type ShelfSource } from "./shelf";

/**
 * The production API against a peer, each in a process of its own on the same database process, measured
 * alternately in rounds. Two peers share one schema and its resolvers (`processes/peer.ts`): a bare Apollo
 * Server 5 + Express + driver server (`processes/bare-api-process.ts`), to show what the API's limits, access
 * checks, logs, metrics and request context cost a request; and Mercurius on Fastify with graphql-jit
 * (`processes/mercurius-process.ts`), the fastest Node GraphQL server a team would pick (issue 56).
 */

/** Each peer's entry point, from the repository's root. */
export const PEERS = {
  bare: "bench/processes/bare-api-process.ts",
  mercurius: "bench/processes/mercurius-process.ts",
} as const;

export type PeerName = keyof typeof PEERS;

export interface VersusPeerRow {
  scenario: string;
  /** Requests completed over seconds measured, summed over every round. */
  oursRequestsPerSecond: number;
  peerRequestsPerSecond: number;
  oursOverPeer: number;
  /** Each round's ours / peer, in order, to show how much the machine moved between rounds. */
  roundRatios: number[];
  /** CPU time of each server's process (user and system, all its threads) over the requests it completed; NaN where /proc is not. */
  oursCpuMsPerRequest: number;
  peerCpuMsPerRequest: number;
  /** CPU time of the database's process while each server was loaded, over that server's requests; NaN when the bench did not start it. */
  databaseCpuMsPerOurRequest: number;
  databaseCpuMsPerPeerRequest: number;
  /** The API's commands during its measured loads (from its /metrics) over the requests it completed. */
  oursCommandsPerRequest: number;
  failures: number;
}

export interface VersusPeerResults {
  database: string;
  /** The Node version both servers ran on (they are children of the bench, started with its own `node`). */
  node: string;
  rounds: number;
  secondsPerLoad: number;
  rows: VersusPeerRow[];
}

/** The catalog listing without buyers: the books and their count, two commands on either server. */
export const PLAIN_LISTING: Scenario = {
  name: "books(first: 5) { totalCount edges { node { id title purchaseCount } } }",
  body: () => graphql("{ books(first: 5) { totalCount edges { node { id title purchaseCount } } } }", {}),
};

/**
 * Issue 56's fourth request as its table words it ("the same with 20 books and `cursor author year`"): the listing
 * without buyers, 20 books, the same two commands on either server. Measured beside the storefront listings, so that
 * the issue's figures have their own row whichever of the two it meant.
 */
export const TWENTY_BOOK_PLAIN_LISTING: Scenario = {
  name: "books(first: 20) { totalCount edges { cursor node { id title author year purchaseCount } } }",
  body: () => graphql("{ books(first: 20) { totalCount edges { cursor node { id title author year purchaseCount } } } }", {}),
};

/** The storefront listings with 5 buyers each, whose cost grows with the books: what a book costs on either server. */
export const TWENTY_BOOK_LISTING = listingScenario(20);
export const FIFTY_BOOK_LISTING = listingScenario(50);
export const STOREFRONT_LISTINGS = [TWENTY_BOOK_LISTING, FIFTY_BOOK_LISTING];

export const VERSUS_PEER_SCENARIOS = [OVERHEAD, ONE_ROUND_TRIP, PLAIN_LISTING, TWENTY_BOOK_PLAIN_LISTING, ...STOREFRONT_LISTINGS];

export function versusPeerSteps(plan: Plan["versusPeer"]): number {
  return VERSUS_PEER_SCENARIOS.length * plan.rounds;
}

/**
 * The API as `npm start` runs it in production, with tokens: the listings' buyers need `purchases:read`.
 * Every load sends the token to both servers (the peer ignores it), so the requests are the same bytes.
 */
export function benchToken(): { apiTokens: string; authorization: string } {
  const token = randomBytes(24).toString("hex");
  return {
    apiTokens: JSON.stringify([{ name: "bench", token, scopes: ["purchases:read"] }]),
    authorization: `Bearer ${token}`,
  };
}

export async function benchmarkVersusPeer(
  source: ShelfSource,
  peerName: PeerName,
  plan: Plan["versusPeer"],
  progress: Progress,
): Promise<VersusPeerResults> {
  return withShelfApart(source, async (shelf) => {
    const { apiTokens, authorization } = benchToken();
    // The peers have no response cache: ours answers from the database too (uncached), so both do the same work.
    // Its token is one client sending as fast as the API answers, as a router does for many users: its budget is
    // raised as an operator would raise a router's (CLIENT_BUDGET_TOKEN_DOCUMENTS), or the 50-book listings are refused.
    const ours = await startApiOnShelf(shelf, { env: { API_TOKENS: apiTokens, CLIENT_BUDGET_TOKEN_DOCUMENTS: "1000000000" } });
    try {
      const peer = await startChild(PEERS[peerName], [], shelf.env);
      try {
        const servers: Servers = { ours, peer, databasePid: shelf.standIn?.pid ?? null, authorization };
        const rows: VersusPeerRow[] = [];
        for (const scenario of VERSUS_PEER_SCENARIOS) rows.push(await compare(servers, scenario, plan, progress));
        return { database: shelf.description, node: process.version, rounds: plan.rounds, secondsPerLoad: plan.seconds, rows };
      } finally {
        await peer.stop();
      }
    } finally {
      await ours.stop();
    }
  });
}

interface Servers {
  ours: Child;
  peer: Child;
  databasePid: number | null;
  authorization: string;
}

interface Load {
  requests: number;
  seconds: number;
  failures: number;
  cpuMs: number;
  databaseCpuMs: number;
}

/** Warms both servers, then rounds of one load each, the first server of a round alternating so that drift in the machine falls on both. */
async function compare(servers: Servers, scenario: Scenario, plan: Plan["versusPeer"], progress: Progress): Promise<VersusPeerRow> {
  const { ours, peer, databasePid, authorization } = servers;
  const body = scenario.body(0, {});
  const run = async (server: Child, seconds: number): Promise<Load> => {
    const [cpuBefore, databaseCpuBefore] = [cpuMsOf(server.pid), cpuMsOf(databasePid)];
    const result = await loadFromChild(server.firstLine, body, plan.connections, seconds, authorization);
    return {
      requests: result.requests.total,
      seconds: result.duration,
      failures: result.non2xx + result.errors,
      cpuMs: cpuMsOf(server.pid) - cpuBefore,
      databaseCpuMs: cpuMsOf(databasePid) - databaseCpuBefore,
    };
  };
  for (const server of [ours, peer]) await run(server, plan.warmupSeconds);
  await setTimeout(SETTLE_MS);
  const commandsBefore = await commandsSent(ours.firstLine);
  const loads = { ours: [] as Load[], peer: [] as Load[] };
  for (let round = 0; round < plan.rounds; round += 1) {
    const order = round % 2 === 0 ? (["ours", "peer"] as const) : (["peer", "ours"] as const);
    for (const side of order) loads[side].push(await run(side === "ours" ? ours : peer, plan.seconds));
    progress.step(`${scenario.name}, round ${round + 1}`);
  }
  await setTimeout(SETTLE_MS);
  // The /metrics scrape itself sends a count (the outlier-books gauge): take it out.
  const commands = (await commandsSent(ours.firstLine)) - commandsBefore - (await scrapeCost(ours.firstLine));
  const requests = (list: Load[]) => sum(list.map((load) => load.requests));
  const perSecond = (list: Load[]) => ratio(requests(list), sum(list.map((load) => load.seconds)));
  const perRequest = (list: Load[], of: (load: Load) => number) => ratio(sum(list.map(of)), requests(list));
  const [oursRate, peerRate] = [perSecond(loads.ours), perSecond(loads.peer)];
  return {
    scenario: scenario.name,
    oursRequestsPerSecond: oursRate,
    peerRequestsPerSecond: peerRate,
    oursOverPeer: oursRate / peerRate,
    roundRatios: loads.ours.map((load, round) => ratio(load.requests, load.seconds) / perSecond([loads.peer[round]!])),
    oursCpuMsPerRequest: perRequest(loads.ours, (load) => load.cpuMs),
    peerCpuMsPerRequest: perRequest(loads.peer, (load) => load.cpuMs),
    databaseCpuMsPerOurRequest: perRequest(loads.ours, (load) => load.databaseCpuMs),
    databaseCpuMsPerPeerRequest: perRequest(loads.peer, (load) => load.databaseCpuMs),
    oursCommandsPerRequest: ratio(commands, requests(loads.ours)),
    failures: sum([...loads.ours, ...loads.peer].map((load) => load.failures)),
  };
}
