import { E_TIMEOUT, Semaphore, withTimeout } from "async-mutex";
import { wholeBudget } from "./refilling";

/**
 * A request estimated to examine more documents than this goes through the heavy lane; lighter ones (a book's
 * page, a purchase, a check) never wait for it.
 */
export const LIGHT_DOCUMENTS = 100;

/** The documents heavy requests of one server may have under way at once: one request at the limit, three of the largest catalog pages. */
export const HEAVY_LANE_DOCUMENTS = 1_000;

/**
 * The documents heavy requests of one server may start per second, however many clients send them: one request at the
 * document limit every 100 ms. `_entities` of 1,000 books costs the API about 40 ms of CPU, so heavy work holds at
 * most about 40 % of the API's time, and a light request meets one such request at a time, not a row of them: each
 * client's budget bounds its average, not the moment it spends it, and the victim bench's eight attackers of
 * `_entities`, their budgets whole when the attack began, sent eight at once (docs/benchmarks/analysis.md, issue 35).
 */
export const HEAVY_DOCUMENTS_PER_SECOND = 10_000;

/** What a request holds while it runs in the lane, until it is answered. */
export type LaneRelease = () => void;

/**
 * The server's heavy lane: requests that may examine many documents take turns, so that however many clients send
 * them, the database works on at most HEAVY_LANE_DOCUMENTS of theirs at once and a light request finds it, and the
 * request's own pool share, free. One request's share of the pool (a tenth) bounds what it holds; the lane bounds what
 * many of them hold together, which their shares alone did not: sixteen clients at a tenth each asked for more than
 * the whole pool. Requests of different clients enter it at most HEAVY_DOCUMENTS_PER_SECOND documents a second, so
 * that a burst of them is spread rather than run back to back. Turns go round the waiting clients (a client's n-th request waiting or in the lane waits behind every
 * other client's first n), so that a client sending a burst does not hold the lane ahead of the others; requests of
 * one client, and of no known client, keep their arrival order.
 */
export interface HeavyLane {
  /**
   * Waits for room for `documents` (at most `waitMs`), taking turns with the other clients', or resolves at once
   * for a light request; undefined when the wait ran out.
   */
  enter(documents: number, client?: string): Promise<LaneRelease | undefined>;
}

export function createHeavyLane(
  waitMs: number,
  capacity: number = HEAVY_LANE_DOCUMENTS,
  documentsPerSecond: number = HEAVY_DOCUMENTS_PER_SECOND,
): HeavyLane {
  const lane = withTimeout(new Semaphore(capacity), waitMs);
  const pace = wholeBudget(capacity, documentsPerSecond, 1_000);
  // Each client's requests waiting or in the lane: the next one's turn comes after as many of every other client's.
  const underWay = new Map<string, number>();
  // The pace spaces the requests of different clients: one client's, back to back, are bounded by its own budget,
  // so that a router whose budget an operator raised is not held to the pace as well.
  let paced: string | undefined;
  const keepPace = async (documents: number, client: string) => {
    if (client === paced) pace.tryRemoveTokens(Math.min(documents, pace.content));
    else await pace.removeTokens(documents);
    paced = client;
  };
  const leave = (client: string) => {
    const left = underWay.get(client)! - 1;
    if (left === 0) underWay.delete(client);
    else underWay.set(client, left);
  };
  return {
    async enter(documents, client = "") {
      if (documents <= LIGHT_DOCUMENTS) return () => {};
      const turn = underWay.get(client) ?? 0;
      underWay.set(client, turn + 1);
      try {
        // async-mutex lets a higher priority in first, and equal priorities in arrival order.
        const [, release] = await lane.acquire(Math.min(documents, capacity), -turn);
        // Waited for in the lane, so that requests keep their turns; at most capacity / documentsPerSecond (100 ms).
        await keepPace(Math.min(documents, capacity), client);
        return () => {
          release();
          leave(client);
        };
      } catch (error) {
        leave(client);
        if (error === E_TIMEOUT) return undefined;
        throw error;
      }
    },
  };
}
