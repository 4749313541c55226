import { useSyncExternalStore } from "react";

/**
 * Whether the page's WebSocket is down and being tried again, for the notice that says live updates are paused:
 * without it a page left open through an API restart would keep showing old figures as if they were current.
 */
export interface LiveStatus {
  paused(): boolean;
  set(paused: boolean): void;
  subscribe(listener: () => void): () => void;
}

export function liveStatus(): LiveStatus {
  let paused = false;
  const listeners = new Set<() => void>();
  return {
    paused: () => paused,
    set: (value) => {
      if (value === paused) return;
      paused = value;
      for (const listener of listeners) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The page's one status, set by its WebSocket client (src/apollo.ts). */
export const LIVE = liveStatus();

export function LivePausedNotice() {
  const paused = useSyncExternalStore(LIVE.subscribe, LIVE.paused);
  if (!paused) return null;
  return (
    <p role="status" className="live-paused" data-testid="live-paused">
      Live updates paused — reconnecting…
    </p>
  );
}
