/**
 * Operations a test started and has not seen end. A test that fails or times out while hundreds of
 * purchases are still running would otherwise let their writes land in the next test's database
 * state and command counts; settle-in-flight.ts waits for them after every test.
 */
const inFlight = new Set<Promise<unknown>>();

/** Remembers `operation` until it settles, and returns it unchanged. */
export function track<T>(operation: Promise<T>): Promise<T> {
  inFlight.add(operation);
  const forget = () => void inFlight.delete(operation);
  operation.then(forget, forget);
  return operation;
}

/** Resolves once every tracked operation, including any started meanwhile, has settled. */
export async function settleInFlight(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}
