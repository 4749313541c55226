import type { PurchaseStorage } from "./documents";

export interface ReleaseRetryTiming {
  /** The wait before the first retry; each later wait doubles, up to `maxRetryMs`. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** Releases owed at once past which a failed release is left to its claim's lease: what bounds the memory they take. */
  maxOwed: number;
}

/** Short next to the 2-minute lease, so that a claim is released within seconds of the database's return. */
export const RELEASE_RETRY_TIMING: ReleaseRetryTiming = { firstRetryMs: 250, maxRetryMs: 5_000, maxOwed: 10_000 };

interface OwedRelease {
  release: () => Promise<void>;
  /** When the claim's lease runs out: a retry takes it over from then on, so releasing it no longer matters. Never, for an outcome. */
  until: number;
  /** For an owed outcome: where the purchase went, which this process alone knows until the outcome lands. */
  storedIn?: PurchaseStorage;
}

/**
 * The claims this process owes a release: a request whose recording failed, and which could not delete
 * its claim then (the database was away), hands the delete over here instead of leaving the key to
 * answer PURCHASE_IN_PROGRESS for the whole lease. Each owed release is retried, with doubling waits,
 * until it lands or the lease has passed; a request retrying the same key in this process tries it at
 * once (`settleNow`) and so claims the key as soon as the database answers. A release is the owner's
 * own guarded delete, only later, so it removes nothing another request has taken over since.
 * A purchase written whose outcome could not be stored owes its outcome the same way (the owner's
 * guarded update), so that no retry records it a second time; a retry that lands it answers from it.
 * An owed outcome is retried past the lease, for as long as the process lives: it holds the only record
 * of where the purchase went, and a retry of the key in this process answers from it (`owedOutcome`)
 * rather than take the claim over, however long the database refuses the write.
 * Releases are known by the claim's owner token, which is random per claim. One per server; `stop()`
 * on shutdown ends the retries (what is still owed is left to its lease, as before).
 */
export class ClaimReleases {
  private readonly owed = new Map<string, OwedRelease>();
  private readonly retries = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly timing: ReleaseRetryTiming = RELEASE_RETRY_TIMING) {}

  /** Takes on a release that failed; false (the claim left to its lease) once full or stopped. */
  owe(owner: string, until: Date, release: () => Promise<void>): boolean {
    return this.take(owner, { release, until: until.getTime() });
  }

  /** Takes on the store of an outcome that failed, kept until it lands; false (the claim left to its lease) once full or stopped. */
  oweOutcome(owner: string, storedIn: PurchaseStorage, store: () => Promise<void>): boolean {
    return this.take(owner, { release: store, until: Number.POSITIVE_INFINITY, storedIn });
  }

  /** Where `owner`'s purchase went, while its outcome is owed: the purchase is written, whatever the claim's lease says. */
  owedOutcome(owner: string): PurchaseStorage | undefined {
    return this.owed.get(owner)?.storedIn;
  }

  private take(owner: string, owed: OwedRelease): boolean {
    if (this.stopping.signal.aborted || this.owed.size >= this.timing.maxOwed) return false;
    this.owed.set(owner, owed);
    const retry = this.retryUntilReleased(owner, owed).finally(() => this.retries.delete(retry));
    this.retries.add(retry);
    return true;
  }

  /** How many releases are still owed. */
  get size(): number {
    return this.owed.size;
  }

  /** Tries the write owed for `owner`'s claim now; true once it has landed, false when none is owed or the database still refuses. */
  async settleNow(owner: string): Promise<boolean> {
    const owed = this.owed.get(owner);
    if (owed === undefined) return false;
    try {
      await owed.release();
    } catch {
      return false;
    }
    this.forget(owner, owed);
    return true;
  }

  /** Ends the retries and waits for any release under way; what is still owed is left to its lease. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.retries);
    this.owed.clear();
  }

  private async retryUntilReleased(owner: string, owed: OwedRelease): Promise<void> {
    for (let attempt = 0; this.owed.get(owner) === owed; attempt += 1) {
      const wait = Math.min(this.timing.maxRetryMs, this.timing.firstRetryMs * 2 ** attempt);
      if (Date.now() + wait >= owed.until) break;
      const stopped = await waitUnlessStopped(wait, this.stopping.signal);
      if (stopped) break;
      if (this.owed.get(owner) !== owed) return;
      try {
        await owed.release();
        break;
      } catch {
        // The database is still away: the next attempt waits longer.
      }
    }
    this.forget(owner, owed);
  }

  private forget(owner: string, owed: OwedRelease): void {
    if (this.owed.get(owner) === owed) this.owed.delete(owner);
  }
}

/**
 * True at once when `stopping` aborts, false after `ms`. On the global timers, which jest's timers drive in a unit test
 * (node:timers/promises bypasses them); unref'd: an owed release never keeps the process alive.
 */
function waitUnlessStopped(ms: number, stopping: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (stopping.aborted) return resolve(true);
    const stop = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      stopping.removeEventListener("abort", stop);
      resolve(false);
    }, ms).unref();
    stopping.addEventListener("abort", stop, { once: true });
  });
}
