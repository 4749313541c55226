import type { Windows } from "./windows";

/**
 * The buttons under a window of a list: back to the window before (none before the first), and on to the window
 * `next` starts at, undefined while there is none or the window asked for has not arrived.
 */
export function Pager({
  windows,
  next,
  labels = ["← Previous", "Next →"],
}: {
  windows: Windows;
  next: string | null | undefined;
  labels?: readonly [string, string];
}) {
  return (
    <nav className="pager">
      <button disabled={windows.page === 1} onClick={windows.back}>
        {labels[0]}
      </button>
      <button disabled={next === undefined} onClick={() => windows.forward(next ?? null)}>
        {labels[1]}
      </button>
    </nav>
  );
}
