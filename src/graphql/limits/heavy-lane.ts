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
 * The server's heavy lane: requests that may examine many documents take turns, in first-come order, so that
 * however many clients send them, the database works on at most HEAVY_LANE_DOCUMENTS of theirs at once and a
 * light request finds it, and the request's own pool share, free. One request's share of the pool (a tenth)
 * bounds what it holds; the lane bounds what many of them hold together, which their shares alone did not:
 * sixteen clients at a tenth each asked for more than the whole pool.
 */
export interface HeavyLane {
  /** Waits for room for `documents` (at most `waitMs`), or resolves at once for a light request; undefined when the wait ran out. */
  enter(documents: number): Promise<LaneRelease | undefined>;
}

export function createHeavyLane(waitMs: number, capacity: number = HEAVY_LANE_DOCUMENTS): HeavyLane {
  const lane = withTimeout(new Semaphore(capacity), waitMs);
  return {
    async enter(documents) {
      if (documents <= LIGHT_DOCUMENTS) return () => {};
      try {
        const [, release] = await lane.acquire(Math.min(documents, capacity));
        return release;
      } catch (error) {
        if (error === E_TIMEOUT) return undefined;
        throw error;
      }
    },
  };
}
