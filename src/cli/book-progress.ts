import { SingleBar } from "cli-progress";

export interface BookProgressBar {
  update(booksDone: number, booksTotal: number, payload?: Record<string, number>): void;
  stop(): void;
}

// Where stderr is no terminal (CI, a container's log), the bar is a line of its own this often instead of redrawn in place.
const LOG_LINE_INTERVAL_MS = 5_000;

/**
 * A progress bar on stderr (stdout stays for the summary and JSON) that counts books and shows
 * their rate; `format` may name the extra payload fields a command passes to `update`.
 */
function bookProgressBar(format: string, stream: NodeJS.WritableStream): BookProgressBar {
  const bar = new SingleBar({
    format: `${format} | {rate} books/s | ETA {eta_formatted}`,
    stream,
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: LOG_LINE_INTERVAL_MS,
  });
  const started = Date.now();
  let shown = false;
  return {
    update(booksDone, booksTotal, payload = {}) {
      const rate = Math.round(booksDone / Math.max((Date.now() - started) / 1000, 0.001));
      if (!shown) bar.start(booksTotal, booksDone, { ...payload, rate });
      shown = true;
      bar.setTotal(booksTotal);
      bar.update(booksDone, { ...payload, rate });
    },
    stop: () => bar.stop(),
  };
}

/** Runs `work` with a book progress bar that is stopped however the work ends, so the terminal gets its cursor back. */
export async function withBookProgress<T>(
  format: string,
  work: (bar: BookProgressBar) => Promise<T>,
  stream: NodeJS.WritableStream = process.stderr,
): Promise<T> {
  const bar = bookProgressBar(format, stream);
  try {
    return await work(bar);
  } finally {
    bar.stop();
  }
}
