import { PassThrough } from "node:stream";
import { withBookProgress } from "../../src/cli/book-progress";

/** A stream that is no terminal, as stderr is in CI and in a container's log. */
function logStream(): { stream: PassThrough; lines: () => string[] } {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => void (text += chunk.toString()));
  return { stream, lines: () => text.split("\n").filter((line) => line.trim() !== "") };
}

describe("book progress where stderr is no terminal", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("writes a line at once and another every 5 s, each with the books done", async () => {
    const { stream, lines } = logStream();
    await withBookProgress(
      "Seeding |{bar}| {value}/{total} books",
      async (bar) => {
        bar.update(10, 100);
        await jest.advanceTimersByTimeAsync(100);
        const first = lines().length;
        bar.update(40, 100);
        await jest.advanceTimersByTimeAsync(5_000);
        bar.update(70, 100);
        await jest.advanceTimersByTimeAsync(5_000);
        expect(first).toBe(1);
        expect(lines().map((line) => /(\d+)\/100 books/.exec(line)?.[1])).toEqual(["10", "40", "70"]);
      },
      stream,
    );
  });
});
