import { useState } from "react";

/**
 * Paging by windows: one window of a list on screen at a time, never a growing merge. The cursors that
 * led to each earlier window are kept, so "back" shows the same window again instead of recounting.
 */
export function useWindows(): { cursor: string | null; page: number; forward(cursor: string | null): void; back(): void; reset(): void } {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return {
    cursor: cursors.at(-1) ?? null,
    page: cursors.length,
    forward: (cursor) => setCursors((stack) => [...stack, cursor]),
    back: () => setCursors((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)),
    reset: () => setCursors([null]),
  };
}
