import { useRef, useState } from "react";

/** One list's windows: where the next read starts, which window that is, and the way between them. */
export interface Windows {
  cursor: string | null;
  page: number;
  forward(cursor: string | null): void;
  back(): void;
  reset(): void;
  /**
   * The window on screen: the one asked for once it has `loaded`, else the one shown before it, whose items stay on
   * screen until the next arrive, so that their numbers and label are those of the window shown, not of the one on its way.
   */
  shownPage(loaded: boolean): number;
}

/**
 * Paging by windows: one window of a list on screen at a time, never a growing merge. The cursors that
 * led to each earlier window are kept, so "back" shows the same window again instead of recounting.
 */
export function useWindows(): Windows {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const shown = useRef(cursors.length);
  return {
    cursor: cursors.at(-1) ?? null,
    page: cursors.length,
    forward: (cursor) => setCursors((stack) => [...stack, cursor]),
    back: () => setCursors((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)),
    reset: () => setCursors([null]),
    shownPage: (loaded) => {
      if (loaded) shown.current = cursors.length;
      return shown.current;
    },
  };
}
