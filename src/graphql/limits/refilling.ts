import { TokenBucket } from "limiter";

/**
 * A budget of `size` that refills continuously, `amount` per `intervalMs` up to its size, and is whole to begin with
 * (limiter's TokenBucket starts empty): a client's budget, the heavy lane's pace.
 */
export function wholeBudget(size: number, amount: number, intervalMs: number): TokenBucket {
  const budget = new TokenBucket({ bucketSize: size, tokensPerInterval: amount, interval: intervalMs });
  budget.content = size;
  return budget;
}
