import { E_TIMEOUT, Semaphore, withTimeout } from "async-mutex";

/**
 * A request estimated to examine more documents than this goes through the heavy lane; lighter ones (a book's
 * page, a purchase, a check) never wait for it.
 */
export const LIGHT_DOCUMENTS = 100;

/** The documents heavy requests of one server may have under way at once: one request at the limit, three of the largest catalog pages. */
export const HEAVY_LANE_DOCUMENTS = 1_000;

/** What a request holds while it runs in the lane, until it is answered. */
export type LaneRelease = () => void;

/**
 * The server's heavy lane: requests that may examine many documents take turns, so that however many clients send
 * them, the database works on at most HEAVY_LANE_DOCUMENTS of theirs at once and a light request finds it, and the
 * request's own pool share, free. One request's share of the pool (a tenth) bounds what it holds; the lane bounds what
 * many of them hold together, which their shares alone did not: sixteen clients at a tenth each asked for more than
 * the whole pool. Turns go round the waiting clients (a client's n-th request waiting or in the lane waits behind every
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

export function createHeavyLane(waitMs: number, capacity: number = HEAVY_LANE_DOCUMENTS): HeavyLane {
  const lane = withTimeout(new Semaphore(capacity), waitMs);
  // Each client's requests waiting or in the lane: the next one's turn comes after as many of every other client's.
  const underWay = new Map<string, number>();
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
