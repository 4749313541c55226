import type { MongoClient, TopologyDescription } from "mongodb";

export interface WatchdogTiming {
  /** How often the watchdog looks at the client. */
  tickMs: number;
  /** How long the client may be without a writable server before a fresh connection is tried beside it. */
  probeAfterMs: number;
  /** How long the database may answer fresh connections while this client still cannot reach it before the process is declared unable to recover. */
  unrecoverableAfterMs: number;
}

/**
 * A healthy client finds a returning database within half a second under load (each operation asks
 * its monitor for a check) and within its 10 s heartbeat when idle; 5 s without a writable server is
 * what an outage looks like, never a normal moment. A minute of the database answering others but not
 * this client, through reconnections, means this process will not recover by itself.
 */
export const WATCHDOG_TIMING: WatchdogTiming = { tickMs: 1_000, probeAfterMs: 5_000, unrecoverableAfterMs: 60_000 };

export interface ConnectionWatchdog {
  /** False once the database has answered fresh connections for `unrecoverableAfterMs` while this client could not reach it: /healthz fails, so that a supervisor restarts the process. */
  healthy(): boolean;
  /** How many times the client has been replaced because it stayed unreachable while the database answered. */
  reconnections(): number;
  stop(): void;
}

export interface WatchdogActions {
  /** True when a fresh client, with nothing of this one's state, reaches the database now. */
  probe(): Promise<boolean>;
  /** True when this client reaches the database now (its server selection also asks its monitor for a check). */
  reachable(): Promise<boolean>;
  /** Closes this client's topology and connects it afresh. */
  reconnect(): Promise<void>;
  /** Told each time the client is replaced, with how long it had been without a writable server. */
  onReconnect(unavailableMs: number): void;
}

/**
 * Watches a client's topology for the state the mongodb driver (7.9) cannot leave by itself: its server
 * monitor stuck in a check that never ends, the server Unknown and its pool paused for good while the
 * database answers everyone else. (A connection reset under a heartbeat that was just being written
 * leaves the driver waiting for a `drain` event a destroyed socket never emits; every later heartbeat is
 * skipped as "already checking".) Once the client has been without a writable server for
 * `probeAfterMs`, each tick tries a fresh connection; when that succeeds and this client's own command
 * still fails, the client's topology is replaced. Operations in flight on it fail as the outage already
 * made them fail (DATABASE_UNAVAILABLE); the `Db` handles stay valid.
 */
export function watchConnection(
  client: MongoClient,
  actions: WatchdogActions,
  timing: WatchdogTiming = WATCHDOG_TIMING,
): ConnectionWatchdog {
  let unavailableSince: number | undefined;
  let answeredOthersSince: number | undefined;
  let nextProbeAt = 0;
  let replaced = 0;
  let looking = false;

  const onTopologyChange = ({ newDescription }: { newDescription: TopologyDescription }) => {
    if (hasWritableServer(newDescription)) {
      unavailableSince = undefined;
      answeredOthersSince = undefined;
    } else unavailableSince ??= Date.now();
  };
  client.on("topologyDescriptionChanged", onTopologyChange);

  const look = async () => {
    const since = unavailableSince;
    if (since === undefined || Date.now() < Math.max(nextProbeAt, since + timing.probeAfterMs)) return;
    if (!(await actions.probe())) {
      answeredOthersSince = undefined;
      return;
    }
    answeredOthersSince ??= Date.now();
    if (await actions.reachable()) return;
    replaced += 1;
    actions.onReconnect(Date.now() - since);
    // The fresh topology needs a moment to find the server before it is judged again.
    nextProbeAt = Date.now() + timing.probeAfterMs;
    await actions.reconnect();
  };
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    void look()
      .catch(() => undefined)
      .finally(() => (looking = false));
  }, timing.tickMs).unref();

  return {
    healthy: () =>
      answeredOthersSince === undefined || unavailableSince === undefined || Date.now() - answeredOthersSince < timing.unrecoverableAfterMs,
    reconnections: () => replaced,
    stop: () => {
      clearInterval(timer);
      client.off("topologyDescriptionChanged", onTopologyChange);
    },
  };
}

/** A standalone, a primary, a mongos or a load balancer: a server that takes writes, which every purchase needs. */
function hasWritableServer(description: TopologyDescription): boolean {
  return [...description.servers.values()].some((server) => server.isWritable);
}
