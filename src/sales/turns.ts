import { setImmediate } from "node:timers/promises";

/**
 * Resolves on a later iteration of the event loop, after it has polled for I/O, so that a request read meanwhile is
 * served before what follows. One `setImmediate` queued from an I/O callback (or a promise it resolved) runs in the
 * same iteration's check phase, before the next poll; a second one, queued from the check phase, runs after it.
 */
export async function afterPolling(): Promise<void> {
  await setImmediate();
  await setImmediate();
}

/**
 * Hands out turns to work that arrives all at once (a router's 1,000 representations, resolved in one synchronous
 * loop): the first `perTurn` calls resolve at once, the next `perTurn` after the event loop has polled, and so on,
 * so that no stretch of the event loop does more than `perTurn` of them.
 */
export function createTurns(perTurn: number): () => Promise<void> {
  let given = 0;
  let turn: Promise<void> = Promise.resolve();
  return () => {
    if (given > 0 && given % perTurn === 0) turn = turn.then(afterPolling);
    given += 1;
    return turn;
  };
}
